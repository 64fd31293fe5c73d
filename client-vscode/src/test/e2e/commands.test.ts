import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { Item } from '../../panel/model';
import { modelRequests, script, setUpSuite, uiDone, waitFor, workspaceRoot, writeFile } from './helpers';

/** The files this suite adds to the shared workspace (and takes away after it). */
const FILES: Record<string, string> = {
  'AGENTS.md': 'Root rule from the e2e AGENTS.md: answer in one sentence.\n',
  'web/AGENTS.md': 'Web rule from the e2e web/AGENTS.md: mention the framework.\n',
  'web/page.ts': 'export const page = 1;\n',
  '.github/prompts/explain-file.prompt.md': '---\ndescription: Explain a file of the web folder\nargument-hint: <file>\n---\nExplain $1 in two sentences.\n',
  '.github/prompts/broken.prompt.md': '---\ndescription: [unclosed\n---\nNever listed.\n',
};

describe('commands and instruction files in the panel', () => {
  let api: AgentlsApi;

  function user(): Extract<Item, { kind: 'user' }> | undefined {
    return api.panel.current.items.find((it): it is Extract<Item, { kind: 'user' }> => it.kind === 'user');
  }

  before(async function () {
    api = await setUpSuite(this);
    for (const [file, text] of Object.entries(FILES)) {
      writeFile(file, text);
    }
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }, { fill: '#prompt', text: '' }] });
    await waitFor(() => api.panel.current.items.length === 0, 'an empty conversation', 20_000);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const file of Object.keys(FILES)) {
      fs.rmSync(path.join(workspaceRoot(), file), { force: true });
    }
    for (const dir of ['web', '.github/prompts', '.github']) {
      try {
        fs.rmdirSync(path.join(workspaceRoot(), dir));
      } catch {
        // not empty: the folder was there before this suite
      }
    }
  });

  it('picks a prompt file command with / and runs it with the AGENTS.md files of the active file', async () => {
    await script([{ text: 'The page exports one constant, with the framework in mind.' }]);
    // The user works in web/page.ts, then turns to the panel: that file stays the active one.
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'web/page.ts')));
    await vscode.commands.executeCommand('agentls.panel.focus');
    assert.ok(vscode.window.activeTextEditor?.document.uri.path.endsWith('/web/page.ts'), 'the edited file is still the active one');

    await uiDone({
      panel: [
        { click: '#prompt' },
        { type: '#prompt', text: '/' },
        { expectText: '#command-picker .command-option[data-command="explain-file"]', text: '/explain-file' },
        { expectText: '#command-picker .command-option[data-command="explain-file"] .command-args', text: '<file>' },
        { expectText: '#command-picker .command-option[data-command="explain-file"]', text: 'Explain a file of the web folder' },
        { expectText: '#command-picker .command-option[data-command="explain-file"] .command-source', text: '.github/prompts/explain-file.prompt.md' },
        { expectText: '#command-picker .command-option[data-command="review"]', text: '/review' },
        { expectText: '#command-picker .command-option[data-command="init"]', text: '/init' },
        { expectCount: '#command-picker .command-option[data-command="broken"]', count: 0 },
        { expectText: '#command-picker .command-problem', text: '.github/prompts/broken.prompt.md' },
        { expectCount: '#command-picker .command-option[aria-selected="true"]', count: 1 },
        { screenshot: 'commands-picker' },
        { type: '#prompt', text: 'expl' },
        { expectCount: '#command-picker .command-option', count: 1 },
        { expectCount: '#command-picker .command-option.active[data-command="explain-file"]', count: 1 },
        { press: '#prompt', key: 'Enter' },
        { expectCount: '#command-picker:not([hidden])', count: 0 },
        { expectText: '#command-hint', text: '/explain-file' },
        { expectText: '#command-hint .command-args', text: '<file>' },
        { type: '#prompt', text: 'web/page.ts' },
        { press: '#prompt', key: 'Enter' },
      ],
    });

    await waitFor(() => api.panel.current.items.some((it) => it.kind === 'end') && api.panel.current.runId === undefined, 'the command run to end', 60_000);
    const end = api.panel.current.items.find((it) => it.kind === 'end');
    assert.strictEqual(end?.kind === 'end' && end.status, 'success', JSON.stringify(end));
    assert.strictEqual(user()?.text, '/explain-file web/page.ts');
    assert.deepStrictEqual(user()?.instructions, ['AGENTS.md', 'web/AGENTS.md']);

    const sent = JSON.stringify((await modelRequests()).at(-1)?.body.messages ?? []);
    assert.match(sent, /Explain web\/page\.ts in two sentences\./, 'the model got the prompt file, expanded');
    assert.match(sent, /Root rule from the e2e AGENTS\.md/, 'the root AGENTS.md');
    assert.match(sent, /Web rule from the e2e web\/AGENTS\.md/, "the AGENTS.md of the active file's folder");

    await uiDone({
      panel: [
        { expectText: '.msg.user .instructions', text: 'Instructions:' },
        { expectText: '.msg.user .instructions button.instruction[data-path="AGENTS.md"]', text: 'AGENTS.md' },
        { expectText: '.msg.user .instructions button.instruction[data-path="web/AGENTS.md"]', text: 'web/AGENTS.md' },
        { expectText: '.msg.assistant', text: 'The page exports one constant' },
        { screenshot: 'run-instructions' },
        { click: '.msg.user .instructions button.instruction[data-path="web/AGENTS.md"]' },
      ],
    });
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.path.endsWith('/web/AGENTS.md'), 'web/AGENTS.md to open from the run header', 20_000);
    assert.match(vscode.window.activeTextEditor!.document.getText(), /Web rule from the e2e/);
  });

  it('moves with the arrows, closes with Escape, chooses with Tab', async () => {
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({
      panel: [
        { fill: '#prompt', text: '' },
        { click: '#prompt' },
        { type: '#prompt', text: '/' },
        { expectText: '#command-picker .command-option.active', text: '/clear' },
        { press: '#prompt', key: 'ArrowDown' },
        { expectText: '#command-picker .command-option.active', text: '/compact' },
        { press: '#prompt', key: 'ArrowUp' },
        { press: '#prompt', key: 'ArrowUp' },
        { expectText: '#command-picker .command-option.active', text: '/review' },
        { press: '#prompt', key: 'Escape' },
        { expectCount: '#command-picker:not([hidden])', count: 0 },
        // Closed by Escape: typing on in the same word does not bring it back.
        { type: '#prompt', text: 're' },
        { expectCount: '#command-picker:not([hidden])', count: 0 },
        { fill: '#prompt', text: '' },
        { type: '#prompt', text: '/rev' },
        { expectCount: '#command-picker .command-option', count: 1 },
        { press: '#prompt', key: 'Tab' },
        { expectCount: '#command-picker:not([hidden])', count: 0 },
        { expectText: '#command-hint', text: 'Review the uncommitted changes' },
        { fill: '#prompt', text: '' },
        { expectCount: '#command-hint:not([hidden])', count: 0 },
      ],
    });
    assert.strictEqual(api.panel.current.items.length, 0, 'choosing a command sends nothing');
  });
});
