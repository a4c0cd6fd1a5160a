-- A long answer in the docs' answer window: its end is in view.
local T = dofile(os.getenv('TANDEM_TEST_SCRIPTS') .. '/nvim_lib.lua')

T.run(function()
  T.open('answer.py')
  T.type(':TandemAsk Explain at length<CR>')
  T.wait('the answer', function()
    return #T.record.messages >= 1
  end)
  local buf = T.M.buffers.answer
  local win = vim.fn.bufwinid(buf)
  T.record.answer = {
    lines = vim.api.nvim_buf_line_count(buf),
    last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1],
    -- The first and last lines the window shows.
    top = vim.fn.line('w0', win),
    bottom = vim.fn.line('w$', win),
    height = vim.api.nvim_win_get_height(win),
  }
end)
