import * as assert from 'assert';
import * as crypto from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { Methods, type PingResult } from '../../protocol';
import { SETTINGS_SENT } from '../../settings';
import { modelRequests, script, setSetting, setUpSuite, waitFor } from './helpers';

/** How many times the extension has sent changed settings to the server (per its log). */
function settingsSent(api: AgentlsApi): number {
  return api.logText().split(SETTINGS_SENT).length - 1;
}

/** The last "Starting <command>" line of the extension's log. */
function lastStart(log: string): string {
  return log.split('\n').filter((line) => line.includes('Starting ')).pop() ?? '';
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('server lifecycle', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
  });

  it('a changed model setting reaches the running server (didChangeConfiguration)', async () => {
    const client = api.server.current;
    try {
      const sent = settingsSent(api);
      await setSetting('model', 'openai/e2e-two');
      await script([{ text: 'from the second model' }], 'e2e-two');
      // The server handles messages in order: once the notification is out, the next run has it.
      await waitFor(() => settingsSent(api) > sent, 'the changed settings to be sent to the server', 20_000);
      const outcome = await vscode.commands.executeCommand<{ result?: { status: string; model?: string } }>('agentls.run', {
        prompt: 'Which model?',
        useSelection: false,
      });
      assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
      const requests = await modelRequests();
      assert.strictEqual(requests[requests.length - 1].body.model, 'e2e-two');
      assert.strictEqual(api.server.current, client, 'no restart for a model change');
    } finally {
      await setSetting('model', undefined);
    }
  });

  it('a missing interpreter gives one notification with "Show log"', async () => {
    const shown: { message: string; actions: string[] }[] = [];
    const real = api.ui.showErrorMessage;
    api.ui.showErrorMessage = async (message, ...actions) => {
      shown.push({ message, actions });
      return undefined;
    };
    try {
      await setSetting('python', '/nonexistent/bin/python3');
      await waitFor(() => shown.length > 0, 'the failure notification', 20_000);
      await api.server.settled();
      assert.strictEqual(shown.length, 1, JSON.stringify(shown));
      assert.match(shown[0].message, /Python interpreter not found: "\/nonexistent\/bin\/python3"/);
      assert.deepStrictEqual(shown[0].actions, ['Show log']);
      assert.strictEqual(api.server.current, undefined);

      // An interpreter without the server package: an import error, said once.
      shown.length = 0;
      await setSetting('python', '/usr/bin/python3');
      await waitFor(() => shown.length > 0, 'the import failure notification', 30_000);
      await api.server.settled();
      assert.strictEqual(shown.length, 1, JSON.stringify(shown));
      assert.match(shown[0].message, /cannot be imported by "\/usr\/bin\/python3"/);
    } finally {
      api.ui.showErrorMessage = real;
      await setSetting('python', undefined);
    }
    await waitFor(() => api.server.current, 'the server to run again', 60_000);
  });

  it('agentls.serverPath runs that executable with --stdio, ahead of any Python', async () => {
    const python = api.settings().python || (await api.managed.readyPython());
    assert.ok(python, 'a Python runs the server');
    const agentls = path.join(path.dirname(python), 'agentls');
    const oldClient = api.server.current;
    try {
      await setSetting('serverPath', agentls);
      const client = await waitFor(() => api.server.current !== oldClient && api.server.current, 'the server from serverPath', 60_000);
      assert.match(lastStart(api.logText()), new RegExp(`Starting ${escape(agentls)} --stdio \\(from agentls\\.serverPath`));
      const agents = await client.sendRequest<{ agents: { name: string }[] }>('agent/agents', {});
      assert.ok(agents.agents.some((a) => a.name === 'build'));
    } finally {
      await setSetting('serverPath', undefined);
    }
    await waitFor(() => api.server.current, 'the server to run again', 60_000);
    assert.match(lastStart(api.logText()), new RegExp(`Starting ${escape(python)} -P -m agentls --stdio \\(from `));
  });

  it('"Agent: Set API key" restarts the server with the key in its environment', async () => {
    const oldClient = api.server.current;
    const key = `sk-e2e-secret-${Date.now()}`;
    const real = api.ui.showInputBox;
    api.ui.showInputBox = async (options) => (options.password ? key : undefined);
    try {
      await vscode.commands.executeCommand('agentls.setApiKey');
    } finally {
      api.ui.showInputBox = real;
    }
    await waitFor(() => api.server.current && api.server.current !== oldClient, 'a restarted server', 60_000);
    await script([{ text: 'ok' }]);
    const outcome = await vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', {
      prompt: 'Say ok',
      useSelection: false,
    });
    assert.strictEqual(outcome?.result?.status, 'success');
    const requests = await modelRequests();
    const sha = crypto.createHash('sha256').update(key).digest('hex');
    assert.ok(requests.length > 0);
    assert.ok(requests[0].auth_present, 'the model got a key');
    assert.ok(sha.startsWith(requests[0].auth_sha256 ?? 'none'), `fingerprint ${requests[0].auth_sha256} is of the stored key`);

    // An empty key removes the stored one (and restarts the server): the suites after this
    // one run with the key of the environment, as the ones before it did.
    const keyed = api.server.current;
    api.ui.showInputBox = async (options) => (options.password ? '' : undefined);
    try {
      await vscode.commands.executeCommand('agentls.setApiKey');
    } finally {
      api.ui.showInputBox = real;
    }
    await waitFor(() => api.server.current && api.server.current !== keyed, 'the server restarted without the stored key', 60_000);
  });

  it('"Agent: Restart server" starts a new server', async () => {
    const oldClient = api.server.current;
    const ok = await vscode.commands.executeCommand<boolean>('agentls.restartServer');
    assert.strictEqual(ok, true);
    assert.ok(api.server.current && api.server.current !== oldClient);
  });

  it('a new server has no model worker until the panel shows (agent/prepare)', async () => {
    const ok = await vscode.commands.executeCommand<boolean>('agentls.restartServer');
    assert.strictEqual(ok, true);
    const client = api.server.current;
    assert.ok(client);
    const ping = (): Promise<PingResult> => client.sendRequest<PingResult>(Methods.ping, {});
    assert.strictEqual((await ping()).workerRunning, false, 'a model worker before any sign of a run');
    await vscode.commands.executeCommand('workbench.view.explorer'); // hidden, if it was shown
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(async () => (await ping()).llmReady, 'the model worker started by agent/prepare', 60_000);
  });
});
