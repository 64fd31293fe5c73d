import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { script, setSetting, setUpSuite, waitFor, workspaceRoot } from './helpers';

describe('a workspace with its own server.py, agent/, indexer.py and agentls.py', () => {
  let api: AgentlsApi;

  // Every way the extension starts a server or the server starts a process, here rather than
  // counted on from the suites that happened to run before this one: a run (the model worker,
  // the symbol process of the index), a restart, an interpreter without agentls, and
  // agentls.serverPath.
  before(async function () {
    api = await setUpSuite(this);
    this.timeout(600_000);
    await script([{ tool_calls: [{ name: 'find_symbol', arguments: { name: 'greet' } }] }, { text: 'Found it.' }]);
    const outcome = await vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', {
      prompt: 'Where is greet defined?',
      useSelection: false,
    });
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));

    let client = api.server.current;
    assert.strictEqual(await vscode.commands.executeCommand<boolean>('agentls.restartServer'), true);
    assert.ok(api.server.current && api.server.current !== client, 'a restarted server');

    const shown: string[] = [];
    const real = api.ui.showErrorMessage;
    api.ui.showErrorMessage = async (message) => {
      shown.push(message);
      return undefined;
    };
    try {
      await setSetting('python', '/usr/bin/python3');
      await waitFor(() => shown.some((m) => /cannot be imported by "\/usr\/bin\/python3"/.test(m)), 'the import failure notification', 60_000);
      await api.server.settled();
    } finally {
      api.ui.showErrorMessage = real;
      await setSetting('python', undefined);
    }
    client = await waitFor(() => api.server.current, 'the server to run again', 60_000);

    const python = api.settings().python || (await api.managed.readyPython());
    assert.ok(python, 'a Python runs the server');
    try {
      await setSetting('serverPath', path.join(path.dirname(python), 'agentls'));
      await waitFor(() => api.server.current && api.server.current !== client, 'the server from agentls.serverPath', 60_000);
    } finally {
      await setSetting('serverPath', undefined);
    }
    await api.server.settled();
    await waitFor(() => api.server.current, 'the server to run again', 60_000);
  });

  it('none of them was ever imported by a server the extension started', async () => {
    const root = workspaceRoot();
    for (const own of ['server.py', 'agent/__init__.py', 'indexer.py', 'agentls.py']) {
      assert.ok(fs.existsSync(path.join(root, own)), `the e2e workspace has ${own}`);
    }
    assert.ok(api.logText().includes(`cwd ${root};`), 'servers ran with the workspace as their cwd');
    const imported = fs.readdirSync(root).filter((name) => name.startsWith('imported-'));
    assert.deepStrictEqual(imported, [], `the workspace's own modules were imported: ${imported.join(', ')}`);
  });
});
