/**
 * Entry point of the end-to-end tests inside VS Code's extension host
 * (`extensionTestsPath` = out/test/index.js): runs the mocha suites in ./e2e and logs
 * `E2E_SUMMARY <passing> passing, <failing> failing` for the runner.
 */
import * as fs from 'fs';
import Mocha from 'mocha';
import * as path from 'path';
import { e2eLog } from './e2eLog';

export function run(): Promise<void> {
  // AGENTLS_E2E_GREP (in the VS Code server's environment) runs only the matching tests.
  const grep = process.env.AGENTLS_E2E_GREP;
  // The reporter writes through Base.consoleLog: to the file too, under the driver.
  Mocha.reporters.Base.consoleLog = e2eLog;
  const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, reporter: 'spec', ...(grep ? { grep } : {}) });
  // AGENTLS_E2E_SUITE names the folder of suites: `e2e` (the default) or `e2e-trust`, which
  // needs a VS Code of its own with Workspace Trust on (scripts/vscode_e2e.sh starts both).
  const dir = path.join(__dirname, process.env.AGENTLS_E2E_SUITE ?? 'e2e');
  // AGENTLS_E2E_FILES (a regular expression) runs only the matching files, e.g. `harness|panel`.
  const only = process.env.AGENTLS_E2E_FILES ? new RegExp(process.env.AGENTLS_E2E_FILES) : undefined;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.js') && (!only || only.test(f)))
    .sort();
  // Name order, for runs that read the same from one time to the next; no file may count on
  // it (each sets up what it needs in its own `before`). AGENTLS_E2E_ORDER=reverse shows that.
  if (process.env.AGENTLS_E2E_ORDER === 'reverse') {
    files.reverse();
  }
  e2eLog(`E2E files in order: ${files.join(', ')}`);
  for (const file of files) {
    mocha.addFile(path.join(dir, file));
  }
  return new Promise((resolve, reject) => {
    let passing = 0;
    let failing = 0;
    const runner = mocha.run((failures) => {
      e2eLog(`E2E_SUMMARY ${passing} passing, ${failing} failing`);
      if (failures > 0) {
        reject(new Error(`${failures} end-to-end tests failed`));
      } else {
        resolve();
      }
    });
    runner.on('pass', () => {
      passing += 1;
    });
    runner.on('fail', () => {
      failing += 1;
    });
  });
}
