-- After a restart: :TandemSessions lists the workspace's saved session, picking it shows its
-- earlier turns, and the next question continues it. Through the docs' setup.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

-- The session picker: the first.
T.picker()

T.run(function()
  T.open('answer.py')
  T.type('<leader>ts')
  T.wait('the resumed session', function()
    return #T.record.messages >= 1
  end)
  T.record.resumed_window = T.window('answer') or vim.NIL
  vim.cmd('TandemAsk What is it now?')
  T.wait('the answer in the resumed session', function()
    return #T.record.messages >= 2
  end)
end)
