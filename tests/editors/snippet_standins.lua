-- Loads a Neovim snippet of docs/editors.md that needs what Neovim 0.7 lacks (0.10/0.11's LSP
-- API) or a plugin this machine can't install (CodeCompanion, avante.nvim), with STAND-INS for
-- those. The stand-ins are not the plugins: they only RECORD what the snippet passes them (the
-- command, its arguments and environment, the init options, the commands it sends), and this
-- script writes that record as JSON. The Rust test then starts the recorded command itself and
-- talks to it as the plugin would.
--
-- TANDEM_TEST_SNIPPET says which snippet TANDEM_TEST_SETUP holds; TANDEM_TEST_RESULTS is where
-- the record goes; TANDEM_TEST_ROOT is the project.

local kind = os.getenv('TANDEM_TEST_SNIPPET')
local record = { kind = kind, steps = {} }

local function save()
  vim.fn.writefile({ vim.fn.json_encode(record) }, os.getenv('TANDEM_TEST_RESULTS'))
end

local function step(name)
  table.insert(record.steps, name)
  save()
end

-- Stand-in for vim.lsp.config / vim.lsp.enable (Neovim 0.11): keeps the config; `enable` is
-- recorded, and the config's root_dir function is called for the current buffer below, as 0.11
-- does when a buffer attaches.
local configs = {}
record.configs = {}
record.enabled = {}
vim.lsp.config = function(name, config)
  configs[name] = config
  record.configs[name] = {
    cmd = config.cmd,
    init_options = config.init_options or vim.NIL,
    filetypes = config.filetypes or vim.NIL,
    root_dir_is_function = type(config.root_dir) == 'function',
  }
end
vim.lsp.enable = function(name)
  table.insert(record.enabled, name)
end

-- Stand-in for vim.lsp.start (Neovim 0.10): records what would be started.
record.started = {}
vim.lsp.start = function(config, opts)
  table.insert(record.started, {
    name = config.name,
    cmd = config.cmd,
    root_dir = config.root_dir or vim.NIL,
    init_options = config.init_options or vim.NIL,
    bufnr = opts and opts.bufnr or vim.NIL,
  })
  return 1
end

-- Stand-in for vim.fs.root (Neovim 0.10), only where it is missing: the nearest directory
-- above the buffer's file that holds `marker`.
vim.fs = vim.fs or {}
if not vim.fs.root then
  vim.fs.root = function(source, marker)
    local file = vim.api.nvim_buf_get_name(source)
    local found = vim.fn.finddir(marker, vim.fn.fnamemodify(file, ':p:h') .. ';')
    if found == '' then
      return nil
    end
    return vim.fn.fnamemodify(found, ':p:h:h')
  end
end

-- Stand-in for vim.lsp.get_clients (0.10) and the client it returns: the commands the snippet
-- sends through `client:exec_cmd` (0.11) or `client.request` (0.10) are recorded; the Rust test
-- sends each of them to the real server.
record.sent = {}
local client = {
  name = 'tandem',
  exec_cmd = function(_, command, context)
    table.insert(record.sent, { via = 'exec_cmd', command = command.command,
      arguments = command.arguments or vim.NIL, bufnr = context and context.bufnr or vim.NIL })
  end,
  request = function(method, params, _, bufnr)
    table.insert(record.sent, { via = 'request', method = method, command = params.command,
      arguments = params.arguments or vim.NIL, bufnr = bufnr or vim.NIL })
  end,
}
vim.lsp.get_clients = function(filter)
  record.get_clients_filter = filter
  if filter and filter.name and filter.name ~= 'tandem' then
    return {}
  end
  return { client }
end

-- Stand-in for CodeCompanion: `setup` keeps its options and resolves each ACP adapter function
-- (CodeCompanion calls it when the chat starts); `extend` records what it extends and with what.
package.preload['codecompanion.adapters'] = function()
  return {
    extend = function(base, opts)
      return { extends = base, opts = opts }
    end,
  }
end
package.preload['codecompanion'] = function()
  return {
    setup = function(opts)
      local acp = {}
      for name, make in pairs((opts.adapters or {}).acp or {}) do
        acp[name] = type(make) == 'function' and make() or make
      end
      record.codecompanion = { acp = acp, interactions = opts.interactions or vim.NIL,
        strategies = opts.strategies or vim.NIL }
    end,
  }
end

-- Stand-in for avante.nvim: `setup` keeps its options (all data in the snippet).
package.preload['avante'] = function()
  return {
    setup = function(opts)
      record.avante = opts
    end,
  }
end

local function main()
  vim.cmd('filetype on')
  step('load the snippet')
  local chunk = assert(loadfile(os.getenv('TANDEM_TEST_SETUP')))
  local returned = chunk()
  local root = os.getenv('TANDEM_TEST_ROOT')
  step('open a file')
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/src/hello.py'))

  if kind == 'nvim-0.11' then
    -- What 0.11 does when the buffer attaches: ask each enabled config for its root.
    for _, name in ipairs(record.enabled) do
      local config = configs[name]
      if config and type(config.root_dir) == 'function' then
        config.root_dir(vim.api.nvim_get_current_buf(), function(dir)
          record.configs[name].root = dir
        end)
      end
    end
    step('run the commands')
    vim.cmd('TandemAsk Say hello')
    vim.cmd('1,2TandemAsk Explain these lines')
    vim.cmd('TandemCancel')
    record.commands = vim.tbl_keys(vim.api.nvim_get_commands({}))
  elseif kind == 'nvim-0.10' then
    -- The snippet's `tandem` helper is local; the test appends `return tandem` to reach it.
    step('send a command')
    returned('tandem.ask', { 'Say hello' })
  end
  record.finished = true
end

local ok, err = pcall(main)
if not ok then
  record.error = tostring(err)
end
save()
vim.cmd('qa!')
