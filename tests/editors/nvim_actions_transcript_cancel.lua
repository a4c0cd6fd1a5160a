-- Code actions on a selection, the transcript, and cancelling a turn, in Neovim through the docs'
-- setup: Neovim's own code action menu, the docs' key mappings.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

-- The code action menu: record what it offers, pick "Fix this".
vim.ui.select = function(items, opts, on_choice)
  T.record.menu = {}
  local chosen
  for i, item in ipairs(items) do
    local title = opts.format_item(item)
    table.insert(T.record.menu, title)
    if title == 'Tandem: Fix this' then
      chosen = i
    end
  end
  on_choice(items[chosen], chosen)
end

T.run(function()
  T.setup()
  -- Through the workspace's symlink: the editor's path for the file is not the sidecar's.
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TANDEM_TEST_ROOT') .. '/answer.py'))
  T.wait('the sidecar to start', function()
    return T.tandem_client() ~= nil
  end)

  -- Nothing selected: no actions.
  local empty = { line = 0, character = 0 }
  local reply = T.tandem_client().request_sync('textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    range = { start = empty, ['end'] = empty },
    context = { diagnostics = {} },
  }, 10000, 0)
  T.record.empty_selection = reply and reply.result or vim.NIL

  local problem = {
    range = { start = { line = 1, character = 4 }, ['end'] = { line = 1, character = 13 } },
    severity = 1,
    message = 'the answer is 42',
  }
  vim.lsp.buf.range_code_action({ diagnostics = { problem } }, { 1, 0 }, { 2, 0 })
  T.wait('the answer to "Fix this"', function()
    return #T.record.messages >= 1
  end)

  T.type('<leader>tt')
  T.wait('the transcript', function()
    return vim.fn.expand('%:e') == 'md'
  end)
  T.record.transcript = { path = vim.fn.expand('%:p'), lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) }
  vim.cmd('close')

  vim.cmd('TandemAsk Take your time')
  T.wait('the second turn to start', function()
    return #T.record.progress >= 3
  end)
  T.type('<leader>tc')
  T.wait('the end of the cancelled turn', function()
    return #T.record.messages >= 2
  end)
end)
