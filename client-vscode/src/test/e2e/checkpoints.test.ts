import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { canUndo } from '../../panel/model';
import { onDisk, reviewMode, script, setSetting, setUpSuite, ui, uiDone, waitFor, workspaceRoot } from './helpers';

describe('Agent: Undo run…', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
  });

  after(async () => {
    await setSetting('confirmMode', undefined);
  });

  it('puts the files of a run back from the palette, confirmed in the refactor preview', async function () {
    this.timeout(240_000);
    const target = path.join(workspaceRoot(), 'undo_target.py');
    const created = path.join(workspaceRoot(), 'undo_new.txt');
    fs.writeFileSync(target, 'VALUE = 1\n');
    fs.rmSync(created, { force: true });
    await reviewMode(api, 'refactorPreview');
    const told: string[] = [];
    const real = api.ui.showInformationMessage;
    api.ui.showInformationMessage = async (message, ...actions) => {
      told.push(message);
      return real(message, ...actions);
    };
    try {
      await setSetting('confirmMode', 'yolo');
      await script([
        {
          tool_calls: [
            { name: 'edit_file', arguments: { path: 'undo_target.py', old_str: 'VALUE = 1', new_str: 'VALUE = 2' } },
            { name: 'write_file', arguments: { path: 'undo_new.txt', content: 'made by the run\n' } },
          ],
        },
        { text: 'Changed.' },
      ]);
      const outcome = await vscode.commands.executeCommand<{ result?: { status: string; runId?: string } }>('agentls.run', {
        prompt: 'Change VALUE and add a file',
        useSelection: false,
      });
      assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
      await waitFor(() => onDisk('undo_target.py') === 'VALUE = 2\n', 'the run edit on disk', 30_000);
      assert.ok(fs.existsSync(created));
      const runId = api.lastOutcomeRunId();
      assert.ok(runId);

      // The real palette and quick pick: typing the run id picks it.
      ui({ palette: 'Agent: Undo run…', type: runId });
      ui({ refactor: 'apply', screenshot: 'undo-run-preview' });
      await waitFor(() => onDisk('undo_target.py') === 'VALUE = 1\n' && !fs.existsSync(created), 'the run undone on disk', 60_000);
      // The user is told what went back once the restore has ended.
      await waitFor(() => told.find((m) => m.includes(`run ${runId} undone (2 file(s) restored)`)), 'the undo summary', 30_000);
    } finally {
      api.ui.showInformationMessage = real;
      ui({ refactor: 'discard', ifOpen: true });
      await reviewMode(api, undefined);
    }
  });

  it('undoes a run with the undo button of the agent panel, then undoes the undo', async function () {
    this.timeout(300_000);
    const target = path.join(workspaceRoot(), 'panel_undo.py');
    fs.writeFileSync(target, 'LIMIT = 10\n');
    await reviewMode(api, 'refactorPreview');
    try {
      await vscode.commands.executeCommand('agentls.panel.focus');
      await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
      await script([
        { tool_calls: [{ name: 'edit_file', arguments: { path: 'panel_undo.py', old_str: 'LIMIT = 10', new_str: 'LIMIT = 99' } }] },
        { text: 'Raised the limit.' },
      ]);
      await vscode.commands.executeCommand('agentls.panel.newSession');
      await uiDone({
        panel: [
          { select: '#confirm', value: 'yolo' },
          { fill: '#prompt', text: 'Raise the limit' },
          { press: '#prompt', key: 'Enter' },
        ],
      });
      const end = await waitFor(
        () => api.panel.current.runId === undefined && api.panel.current.items.find((it) => it.kind === 'end'),
        'the panel run to end',
        60_000,
      );
      assert.strictEqual(end.kind === 'end' && end.status, 'success', JSON.stringify(end));
      assert.strictEqual(onDisk('panel_undo.py'), 'LIMIT = 99\n');
      const runId = end.runId;
      await waitFor(() => canUndo(api.panel.current, end), 'the run to be offered for undo', 30_000);

      const button = `.run-end[data-kind="end"] button.undo[data-run="${runId}"]`;
      await uiDone({ panel: [{ expectText: button, text: 'Undo run' }, { screenshot: 'panel-undo-button' }, { click: button }] });
      ui({ refactor: 'apply', screenshot: 'panel-undo-preview' });
      await waitFor(() => onDisk('panel_undo.py') === 'LIMIT = 10\n', 'the run undone on disk', 60_000);
      const restore = await waitFor(() => api.panel.current.items.find((it) => it.kind === 'restore'), 'the undo in the panel', 30_000);
      assert.ok(restore.kind === 'restore' && restore.restores === runId && restore.restored.includes('panel_undo.py'), JSON.stringify(restore));
      await waitFor(() => canUndo(api.panel.current, restore), 'the undo to be offered for undo', 30_000);
      const again = `.run-end[data-kind="restore"] button.undo[data-run="${restore.runId}"]`;
      await uiDone({
        panel: [{ expectText: '.run-end.restore', text: `Undone: run ${runId}` }, { screenshot: 'panel-undone' }, { click: again }],
      });
      ui({ refactor: 'apply' });
      await waitFor(() => onDisk('panel_undo.py') === 'LIMIT = 99\n', 'the undo undone on disk', 60_000);
      // The second undo shows up too (and its request has ended before the server restarts).
      await waitFor(() => api.panel.current.items.filter((it) => it.kind === 'restore').length === 2, 'the second undo in the panel', 30_000);
    } finally {
      ui({ refactor: 'discard', ifOpen: true });
      await reviewMode(api, undefined);
    }
  });
});
