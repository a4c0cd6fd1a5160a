-- Shared by the Neovim scripts: records what the sidecar sends and what the docs' handlers do,
-- answers the approval questions as the script says, waits, and writes the record that the Rust
-- test checks.
local T = {}

T.record = {
  steps = {}, -- how far the script got, for a failure's story
  questions = {}, -- window/showMessageRequest: the message, the actions, the answer given
  messages = {}, -- window/showMessage
  log = {}, -- window/logMessage
  progress = {}, -- the values of $/progress
  progress_shown = {}, -- what the docs' progress handler shows (M.progress)
}

-- The titles the approval handler picks, in order; with none left it dismisses the question.
T.answers = {}

function T.save()
  vim.fn.writefile({ vim.fn.json_encode(T.record) }, os.getenv('TANDEM_TEST_RESULTS'))
end

function T.step(name)
  table.insert(T.record.steps, name)
  T.save()
end

function T.wait(what, predicate)
  T.step('wait for ' .. what)
  if not vim.wait(60000, predicate, 20) then
    error('timed out waiting for ' .. what, 0)
  end
end

-- The current buffer as the user sees it.
function T.buffer()
  return { lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), modified = vim.bo.modified }
end

-- Keys as the user types them (mappings apply), run to the end.
function T.type(keys)
  T.step('type ' .. keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'x', false)
end

function T.tandem_client()
  for _, client in ipairs(vim.lsp.get_active_clients()) do
    if client.name == 'tandem' then
      return client
    end
  end
end

local function recorder(list, default)
  return function(err, params, ctx, config)
    table.insert(T.record[list], params)
    T.save()
    return default(err, params, ctx, config)
  end
end
vim.lsp.handlers['window/logMessage'] = recorder('log', vim.lsp.handlers['window/logMessage'])
local progress = vim.lsp.handlers['$/progress']
vim.lsp.handlers['$/progress'] = function(err, params, ctx, config)
  table.insert(T.record.progress, params.value)
  return progress(err, params, ctx, config)
end

-- Loads the docs' setup, and records what its handlers are given: the questions (answered with
-- the docs' own :TandemAccept / :TandemReject / :TandemAlways, in the order of T.answers; with
-- none left, the question stays open), the messages and the documents shown.
function T.setup()
  local M = dofile(os.getenv('TANDEM_TEST_SETUP'))
  T.M = M
  T.record.shown = {}
  local on_question, on_message, on_show_document = M.on_question, M.on_message, M.on_show_document
  M.on_question = function(err, params, ctx, config)
    local titles = {}
    for _, action in ipairs(params.actions or {}) do
      table.insert(titles, action.title)
    end
    local answer = table.remove(T.answers, 1)
    table.insert(T.record.questions, { message = params.message, actions = titles, answer = answer or vim.NIL })
    T.save()
    local result = on_question(err, params, ctx, config)
    if answer then
      -- After the docs' handler has shown the question: the user reads it, then answers.
      vim.defer_fn(function()
        T.record.questions[#T.record.questions].window = vim.api.nvim_buf_get_lines(M.buffers.question, 0, -1, false)
        vim.cmd('Tandem' .. answer)
      end, 50)
    end
    return result
  end
  local on_progress = M.on_progress
  M.on_progress = function(err, params, ctx, config)
    local result = on_progress(err, params, ctx, config)
    table.insert(T.record.progress_shown, M.progress)
    T.save()
    return result
  end
  M.on_message = function(err, params, ctx, config)
    table.insert(T.record.messages, params)
    T.save()
    return on_message(err, params, ctx, config)
  end
  M.on_show_document = function(err, params, ctx, config)
    local result = on_show_document(err, params, ctx, config)
    local path = vim.uri_to_fname(params.uri)
    table.insert(T.record.shown, { path = path, takeFocus = params.takeFocus, lines = vim.fn.readfile(path),
                                   current = vim.api.nvim_buf_get_name(0) })
    T.save()
    return result
  end
  return M
end

-- Loads the docs' setup, opens FILE of the workspace (through its symlink: the editor's path for
-- the file is not the sidecar's) and waits for the sidecar.
function T.open(file)
  T.setup()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TANDEM_TEST_ROOT') .. '/' .. file))
  T.wait('the sidecar to start', function()
    return T.tandem_client() ~= nil
  end)
end

-- The picker (vim.ui.select): records what it offers in T.record.menu, picks what CHOOSE says
-- (the first when it says nothing).
function T.picker(choose)
  vim.ui.select = function(items, opts, on_choice)
    T.record.menu = {}
    local chosen = 1
    for i, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(T.record.menu, title)
      if choose and choose(title) then
        chosen = i
      end
    end
    T.save()
    on_choice(items[chosen], chosen)
  end
end

-- The text of Tandem's window NAME (the docs' M.show), or nil.
function T.window(name)
  local buf = T.M.buffers[name]
  if buf and vim.api.nvim_buf_is_valid(buf) and vim.fn.bufwinid(buf) ~= -1 then
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end
end

-- Runs the script; records how it ended and quits (exit code 1 on an error).
function T.run(main)
  local ok, err = xpcall(main, debug.traceback)
  if ok then
    T.record.finished = true
  else
    T.record.error = err
  end
  T.save()
  vim.cmd(ok and 'qa!' or 'cquit!')
end

return T
