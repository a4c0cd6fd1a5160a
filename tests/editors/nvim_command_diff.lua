-- A turn whose command changes a file behind the editor, then :TandemDiff (the docs' command for
-- `tandem.diff`): the turn's change set opens as a document. Through the docs' setup.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

-- The command's question.
T.answers = { 'Accept' }

T.run(function()
  T.open('answer.py')
  vim.cmd('TandemAsk Update the notes')
  T.wait('the end of the turn', function()
    return #T.record.messages >= 1
  end)
  vim.cmd('TandemDiff')
  T.wait('the change set', function()
    return #T.record.shown >= 1
  end)
end)
