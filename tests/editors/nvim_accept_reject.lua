-- The story of story.rs in Neovim, through the docs' setup and its key mappings.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

T.run(function()
  T.setup()
  -- Through the workspace's symlink: the editor's path for the file is not the sidecar's.
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TANDEM_TEST_ROOT') .. '/answer.py'))
  -- An unsaved change of the user's: the agent must work on the buffer, not on the disk.
  vim.api.nvim_buf_set_lines(0, 0, 0, false, { '# The answer, unsaved.' })
  T.wait('the sidecar to start', function()
    return T.tandem_client() ~= nil
  end)

  T.answers = { 'Accept', 'Accept' }
  T.type('ggVG<leader>taMake the answer 42<CR>')
  T.wait('the answer to the first question', function()
    return #T.record.messages >= 1
  end)
  T.record.after_accept = T.buffer()
  T.record.answer_window = T.window('answer') or vim.NIL
  T.record.question_window_after = T.window('question') or vim.NIL

  T.answers = { 'Reject' }
  T.type('<leader>taNow make it 43<CR>')
  T.wait('the answer to the second question', function()
    return #T.record.messages >= 2
  end)
  T.record.after_reject = T.buffer()

  -- Undo the last turn that changed something (the first): through the editor, like the edits.
  T.type('<leader>tu')
  T.wait('the undo to be reported', function()
    return #T.record.messages >= 3
  end)
  T.record.after_undo = T.buffer()
end)
