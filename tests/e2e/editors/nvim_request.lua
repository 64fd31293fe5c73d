-- Drive a language server from headless Neovim 0.7 and record what happened.
--
--   AGENTLS_TEST_ROOT=DIR AGENTLS_TEST_CMD='["python","-m","server","--stdio"]' \
--   AGENTLS_TEST_FILE=app.py AGENTLS_TEST_METHOD=test/apply \
--   AGENTLS_TEST_PARAMS='{"path":"app.py",...}' AGENTLS_TEST_ANSWER=Apply \
--   AGENTLS_TEST_INIT='{"llm":{...}}' AGENTLS_TEST_OUT=out.json \
--   nvim --headless -u NONE -c 'luafile nvim_request.lua'
--
-- Opens FILE in a buffer attached to the server, sends METHOD with PARAMS, answers
-- window/showMessageRequest with ANSWER ("" = close it: null), then writes
-- {result, error, buffer, modified, questions} as JSON to OUT and quits.
--
-- Problems after edits: AGENTLS_TEST_DIAGNOSTICS_LUA names the module of docs/editors.md
-- (its capabilities and agent/diagnostics handler are given to the server), and
-- AGENTLS_TEST_LANGSERVER='["basedpyright-langserver","--stdio"]' attaches that language
-- server to the buffer too, and waits for its first diagnostics before sending METHOD.
-- Code navigation: AGENTLS_TEST_NAVIGATION_LUA names the navigation module of
-- docs/editors.md (its capability and agent/navigate handler are added likewise).

local env = vim.fn.environ()
local root = env.AGENTLS_TEST_ROOT
local out = env.AGENTLS_TEST_OUT
local report = { questions = {}, log = {} }

local function finish()
  local f = io.open(out, 'w')
  f:write(vim.fn.json_encode(report))
  f:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  local answer = env.AGENTLS_TEST_ANSWER or 'Apply'
  vim.lsp.handlers['window/showMessageRequest'] = function(_, params)
    table.insert(report.questions, params.message)
    if answer == '' then
      return vim.NIL
    end
    -- answer with the action of that title; other questions (tool approvals) get
    -- their first action ("Allow once")
    for _, action in ipairs(params.actions or {}) do
      if action.title == answer then
        return action
      end
    end
    return (params.actions or {})[1] or vim.NIL
  end
  vim.lsp.handlers['window/showMessage'] = function(_, params)
    table.insert(report.log, params.message)
  end

  local init = vim.NIL
  if env.AGENTLS_TEST_INIT and env.AGENTLS_TEST_INIT ~= '' then
    init = vim.fn.json_decode(env.AGENTLS_TEST_INIT)
  end
  local capabilities, handlers = nil, nil
  if env.AGENTLS_TEST_DIAGNOSTICS_LUA and env.AGENTLS_TEST_DIAGNOSTICS_LUA ~= '' then
    local problems = dofile(env.AGENTLS_TEST_DIAGNOSTICS_LUA)
    capabilities = problems.capabilities
    handlers = { ['agent/diagnostics'] = problems.handler }
  end
  if env.AGENTLS_TEST_NAVIGATION_LUA and env.AGENTLS_TEST_NAVIGATION_LUA ~= '' then
    local navigation = dofile(env.AGENTLS_TEST_NAVIGATION_LUA)
    capabilities = vim.tbl_deep_extend('force', capabilities or {}, navigation.capabilities)
    handlers = vim.tbl_extend('force', handlers or {}, { ['agent/navigate'] = navigation.handler })
  end
  local client_id = vim.lsp.start_client({
    name = 'agentls',
    cmd = vim.fn.json_decode(env.AGENTLS_TEST_CMD),
    cmd_env = { PYTHONUNBUFFERED = '1' },
    root_dir = root,
    init_options = init,
    capabilities = capabilities,
    handlers = handlers,
    flags = { debounce_text_changes = 0 },
  })
  assert(client_id, 'the server did not start')

  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. env.AGENTLS_TEST_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  assert(vim.wait(60000, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized
  end, 50), 'the server did not initialize')

  if env.AGENTLS_TEST_LANGSERVER and env.AGENTLS_TEST_LANGSERVER ~= '' then
    local published = false
    vim.api.nvim_create_autocmd('DiagnosticChanged', {
      buffer = bufnr,
      callback = function() published = true end,
    })
    local checker = vim.lsp.start_client({
      name = 'checker',
      cmd = vim.fn.json_decode(env.AGENTLS_TEST_LANGSERVER),
      root_dir = root,
      flags = { debounce_text_changes = 0 },
    })
    assert(checker, 'the language server did not start')
    vim.lsp.buf_attach_client(bufnr, checker)
    assert(vim.wait(90000, function() return published end, 50),
      'the language server published no diagnostics')
  end

  local client = vim.lsp.get_client_by_id(client_id)
  local done = false
  client.request(env.AGENTLS_TEST_METHOD, vim.fn.json_decode(env.AGENTLS_TEST_PARAMS),
    function(e, result)
      report.error = e and (e.message or tostring(e.code)) or vim.NIL
      report.result = result
      done = true
    end, bufnr)
  assert(vim.wait(110000, function() return done end, 50), 'no answer from the server')

  report.buffer = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
  report.modified = vim.api.nvim_buf_get_option(bufnr, 'modified')
  report.diagnostics = vim.diagnostic.get(bufnr)
  report.buffers = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      local name = vim.api.nvim_buf_get_name(b)
      report.buffers[name] = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') .. '\n'
    end
  end
  vim.lsp.stop_client(vim.lsp.get_active_clients())
end)
if not ok then
  report.script_error = tostring(err)
end
finish()
