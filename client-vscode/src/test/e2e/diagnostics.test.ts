import * as assert from 'assert';
import * as vscode from 'vscode';
import { Methods } from '../../protocol';
import { modelRequests, runningApi, script, setSetting, setUpSuite, waitFor, writeFile } from './helpers';

/**
 * Problems after edits with VS Code's own problems: the server asks the extension
 * (`agent/diagnostics`), which answers from `vscode.languages.getDiagnostics`, here the
 * built-in TypeScript features of the VS Code build under test.
 */
const SHOP = [
  'export function total(prices: number[]): number {',
  '  const sum = prices.reduce((a, b) => a + b, 0);',
  '  return sum;',
  '}',
  '',
  '// An old problem, there before the agent: not news to it.',
  'export const rate: number = missingRate;',
  '',
].join('\n');

function toolResults(messages: { role: string; content: unknown }[] | undefined): string[] {
  return (messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

describe('problems after edits (TypeScript)', () => {
  before(async function () {
    // The model worker starts at agent/prepare, which the Agent panel sends once visible:
    // this suite does not count on the panel having been shown.
    const api = await runningApi();
    await api.server.current?.sendNotification(Methods.prepare, {});
    await setUpSuite(this);
  });

  afterEach(async () => {
    await setSetting('confirmMode', undefined);
    await setSetting('diagnosticsWaitMs', undefined);
  });

  it('an edit that introduces a type error is told that error; a clean edit nothing', async function () {
    this.timeout(300_000);
    const uri = writeFile('shop.ts', SHOP);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    // The TypeScript server is up and has checked the file: its old problem shows.
    await waitFor(() => vscode.languages.getDiagnostics(uri).length === 1, 'TypeScript to check shop.ts', 180_000);
    await setSetting('confirmMode', 'yolo');
    // Generous for a busy machine: the answer comes as soon as the problems settle.
    await setSetting('diagnosticsWaitMs', 20_000);
    await script([
      { tool_calls: [{ name: 'edit_file', arguments: { path: 'shop.ts', old_str: '  return sum;\n', new_str: '  return String(sum);\n' } }] },
      { tool_calls: [{ name: 'edit_file', arguments: { path: 'shop.ts', old_str: '  return String(sum);\n', new_str: '  return Math.round(sum);\n' } }] },
      { tool_calls: [{ name: 'get_problems', arguments: { paths: ['shop.ts'] } }] },
      { text: 'Done.' },
    ]);
    const outcome = await vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', {
      prompt: 'Round the total',
      useSelection: false,
    });
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    const requests = await modelRequests();
    const [broken, fixed, listed] = toolResults(requests[requests.length - 1].body.messages);
    // Exactly the new problem: the old one of line 7 is not listed.
    assert.match(
      broken,
      /^Edited shop\.ts at line 3 \(\+1 -1\)[^\n]*\n\nNew problems after this edit \(1\):\nshop\.ts:3:\d+ error: Type 'string' is not assignable to type 'number'\. \(ts\)$/,
    );
    assert.match(fixed, /^Edited shop\.ts at line 3 \(\+1 -1\)[^\n]*$/);
    assert.match(listed, /^shop\.ts:7:\d+ error: Cannot find name 'missingRate'\. \(ts\)$/);
    assert.match(document.getText(), /return Math\.round\(sum\);/);
  });
});
