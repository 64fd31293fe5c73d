// The end-to-end driver of the sessions that need real modal dialogs (runner.mjs --log-file).
//
// While extension tests run (`extensionTestsPath`), VS Code refuses every modal dialog
// ("DialogService: refused to show dialog in tests") and the extension's showWarningMessage
// fails, so the MCP approval modal could not be tested that way. This extension, loaded in
// development mode beside agentls, runs the same mocha suites (out/test/index.js) as an
// ordinary extension instead, installed by copying it into the session's extensions folder
// (the web workbench takes one development folder only: the payload is a map). What they log goes as JSON lines to $AGENTLS_E2E_LOG_FILE
// (src/test/e2eLog.ts), which the runner reads in place of the workbench's test channel; this
// adds their exit code.
'use strict';
const fs = require('fs');

exports.activate = function activate() {
  const file = process.env.AGENTLS_E2E_LOG_FILE;
  const suites = process.env.AGENTLS_E2E_TESTS;
  if (!file || !suites) {
    return;
  }
  const write = (record) => fs.appendFileSync(file, `${JSON.stringify(record)}\n`);
  setTimeout(async () => {
    let code = 0;
    try {
      await require(suites).run();
    } catch (error) {
      write({ kind: 'error', text: String(error && error.stack ? error.stack : error) });
      code = 1;
    }
    write({ exit: code });
  }, 0);
};

exports.deactivate = function deactivate() {};
