import * as assert from 'assert';
import * as vscode from 'vscode';
import { FIRST_START_MS, getApi, waitFor } from './helpers';

describe('harness', () => {
  it('loads the extension in a real VS Code with a workspace', async () => {
    const api = await getApi();
    assert.ok(api, 'the extension returns its API');
    assert.ok(vscode.workspace.workspaceFolders?.length, 'a workspace folder is open');
    assert.ok(vscode.version.startsWith('1.'), `VS Code ${vscode.version}`);
    console.log(`VS Code ${vscode.version}, workspace ${vscode.workspace.workspaceFolders?.[0].uri.fsPath}`);
  });

  it('starts the Python server', async function () {
    // Without agentls.python (AGENTLS_E2E_MANAGED=1) the extension first sets up its own
    // environment with pip.
    this.timeout(FIRST_START_MS + 20_000);
    const api = await getApi();
    const client = await waitFor(() => api.server.current, 'the server to run', FIRST_START_MS);
    const origin = api.settings().python ? 'agentls.python' : "the extension's own environment";
    assert.ok(api.logText().includes(`(from ${origin}; cwd`), `started from ${origin}`);
    console.log(`server started from ${origin}`);
    const agents = await client.sendRequest<{ agents: { name: string }[] }>('agent/agents', {});
    assert.ok(agents.agents.some((a) => a.name === 'build'), JSON.stringify(agents));
  });
});
