import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { onDisk, reviewMode, runningApi, script, setSetting, ui, waitFor, workspaceRoot } from './helpers';

describe('Agent: Undo run…', () => {
  let api: AgentlsApi;

  before(async () => {
    api = await runningApi();
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
    } finally {
      ui({ refactor: 'discard', ifOpen: true });
      await reviewMode(api, undefined);
    }
  });
});
