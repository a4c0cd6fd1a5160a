-- The story of story.rs in Neovim, through the docs' setup and its key mappings.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

T.run(function()
  dofile(os.getenv('TANDEM_TEST_SETUP'))
  vim.cmd('edit answer.py')
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

  T.answers = { 'Reject' }
  T.type('<leader>taNow make it 43<CR>')
  T.wait('the answer to the second question', function()
    return #T.record.messages >= 2
  end)
  T.record.after_reject = T.buffer()
end)
