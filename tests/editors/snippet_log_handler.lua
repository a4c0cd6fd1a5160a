-- The docs' `window/logMessage` handler (a table entry, TANDEM_TEST_SETUP) in a real Neovim 0.7
-- client of the real sidecar: a turn's log must reach the screen through it. Headless Neovim
-- writes what `nvim_echo` shows to its stderr, which the Rust test reads.

local record = { steps = {}, messages = {} }

local function save()
  vim.fn.writefile({ vim.fn.json_encode(record) }, os.getenv('TANDEM_TEST_RESULTS'))
end

local function wait(what, predicate)
  table.insert(record.steps, 'wait for ' .. what)
  save()
  if not vim.wait(60000, predicate, 20) then
    error('timed out waiting for ' .. what, 0)
  end
end

local function main()
  -- The docs' entry, as it goes into a client's `handlers = { ... }`.
  local entry = table.concat(vim.fn.readfile(os.getenv('TANDEM_TEST_SETUP')), '\n')
  local handlers = assert(loadstring('return {\n' .. entry .. '\n}'))()
  assert(handlers['window/logMessage'], 'the snippet sets no window/logMessage handler')
  -- The answer is recorded here, not shown, so what reaches stderr came through the log.
  handlers['window/showMessage'] = function(_, result)
    table.insert(record.messages, result.message)
    save()
  end
  local id = vim.lsp.start_client({
    name = 'tandem',
    cmd = { 'tandem', 'lsp' },
    root_dir = os.getenv('TANDEM_TEST_ROOT'),
    handlers = handlers,
  })
  local client
  wait('the sidecar to start', function()
    client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized
  end)
  client.request('workspace/executeCommand', { command = 'tandem.ask', arguments = { 'Say hello' } },
    function() end, 0)
  wait('the answer', function()
    return #record.messages > 0
  end)
  record.finished = true
end

local ok, err = pcall(main)
if not ok then
  record.error = tostring(err)
end
save()
vim.cmd('qa!')
