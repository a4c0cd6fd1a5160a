-- Shared by the Neovim scripts: records what the sidecar sends, answers its approval questions
-- as the script says, waits, and writes the record that the Rust test checks.
local T = {}

T.record = {
  steps = {}, -- how far the script got, for a failure's story
  questions = {}, -- window/showMessageRequest: the message, the actions, the answer given
  messages = {}, -- window/showMessage
  log = {}, -- window/logMessage
  progress = {}, -- the values of $/progress
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

-- Headless, the default handler would wait for a number typed at inputlist() forever.
vim.lsp.handlers['window/showMessageRequest'] = function(_, params)
  local answer = table.remove(T.answers, 1)
  local titles = {}
  for _, action in ipairs(params.actions or {}) do
    table.insert(titles, action.title)
  end
  table.insert(T.record.questions, { message = params.message, actions = titles, answer = answer or vim.NIL })
  T.save()
  for _, action in ipairs(params.actions or {}) do
    if action.title == answer then
      return action
    end
  end
  return vim.NIL
end

local function recorder(list, default)
  return function(err, params, ctx, config)
    table.insert(T.record[list], params)
    T.save()
    return default(err, params, ctx, config)
  end
end
vim.lsp.handlers['window/showMessage'] = recorder('messages', vim.lsp.handlers['window/showMessage'])
vim.lsp.handlers['window/logMessage'] = recorder('log', vim.lsp.handlers['window/logMessage'])
local progress = vim.lsp.handlers['$/progress']
vim.lsp.handlers['$/progress'] = function(err, params, ctx, config)
  table.insert(T.record.progress, params.value)
  return progress(err, params, ctx, config)
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
