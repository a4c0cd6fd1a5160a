-- Code actions on a selection, the transcript, and cancelling a turn, in Neovim through the docs'
-- setup: Neovim's own code action menu, the docs' key mappings.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

-- The code action menu: record what it offers, pick "Fix this".
T.picker(function(title)
  return title == 'Tandem: Fix this'
end)

T.run(function()
  T.open('answer.py')

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
