-- Closing the question window rejects at once; answering in the question window puts the cursor
-- back in the code; the progress shows while a turn runs. Through the docs' setup.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

-- The question window of the docs' setup, or nil.
local function question_window()
  local buf = T.M.buffers.question
  if buf and vim.api.nvim_buf_is_valid(buf) and vim.fn.bufwinid(buf) ~= -1 then
    return vim.fn.bufwinid(buf)
  end
end

local function diff_open()
  return T.M.diff_win ~= nil and vim.api.nvim_win_is_valid(T.M.diff_win)
end

T.run(function()
  T.open('answer.py')

  -- No answers scripted: the question stays open until the user closes its window.
  vim.cmd('TandemAsk Make the answer 42')
  T.wait('the first question', function()
    return question_window() ~= nil and #T.record.questions >= 1
  end)
  T.record.diff_open_when_asked = diff_open()
  vim.api.nvim_set_current_win(question_window())
  T.step('close the question window')
  vim.cmd('close')
  T.wait('the end of the rejected turn', function()
    return #T.record.messages >= 1
  end)
  T.record.after_close = {
    current = vim.api.nvim_buf_get_name(0),
    diff_open = diff_open(),
    question_open = question_window() ~= nil,
    buffer = T.buffer(),
  }

  -- Asked again (no "a turn is already running"): answered with `a` in the question window.
  vim.cmd('TandemAsk Try again')
  T.wait('the second question', function()
    return question_window() ~= nil and #T.record.questions >= 2
  end)
  vim.api.nvim_set_current_win(question_window())
  T.type('a')
  T.record.after_accept_key = vim.api.nvim_buf_get_name(0)
  T.wait('the end of the accepted turn', function()
    return #T.record.messages >= 2
  end)
  T.record.after_accept = T.buffer()
  T.record.answer_window = T.window('answer') or vim.NIL
end)
