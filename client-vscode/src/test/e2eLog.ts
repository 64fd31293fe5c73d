/**
 * Where the end-to-end suites write what the runner reads (their `@@E2E` requests, mocha's
 * report): the console, which the workbench hands to the runner for extension tests, and,
 * when they run under the driver of e2e/driver/ ($AGENTLS_E2E_LOG_FILE), that file: an
 * ordinary extension's console reaches no one, and VS Code does not let it be replaced.
 */
import * as fs from 'fs';
import { format } from 'util';

export function e2eLog(...args: unknown[]): void {
  console.log(...args);
  const file = process.env.AGENTLS_E2E_LOG_FILE;
  if (file) {
    fs.appendFileSync(file, `${JSON.stringify({ kind: 'log', text: format(...args) })}\n`);
  }
}
