import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { script, setUpSuite, uiDone, waitFor } from './helpers';

const COMMAND = 'echo hello from the agent; sleep 1; echo second line; exit 3';

function runTerminal(name: string): vscode.Terminal | undefined {
  return vscode.window.terminals.find((t) => t.name === name);
}

describe('the commands of a run in the terminal', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
    await waitFor(() => api.panel.current.items.length === 0, 'an empty conversation', 20_000);
  });

  it('mirrors the command and its exit code in a terminal named for the run, linked from the tool card', async () => {
    await script([{ tool_calls: [{ name: 'execute_command', arguments: { command: COMMAND } }] }, { text: 'The command failed with exit code 3.' }]);
    await uiDone({ panel: [{ fill: '#prompt', text: 'Run the greeting script' }, { press: '#prompt', key: 'Enter' }] });
    const runId = await waitFor(() => api.panel.current.runId, 'the run to start', 30_000);
    const shown = await waitFor(() => {
      const text = api.terminals.text(runId);
      return text?.includes('[exit code 3]') && text;
    }, 'the terminal to show the end of the command', 60_000);
    assert.match(shown, /\$ echo hello from the agent; sleep 1/);
    assert.ok(shown.indexOf('hello from the agent\r\n') < shown.indexOf('second line\r\n'), JSON.stringify(shown));
    const name = api.terminals.terminalName(runId);
    assert.strictEqual(name, 'agentls: Run the greeting script');
    const terminal = runTerminal(name);
    assert.ok(terminal, `a terminal named ${name}: ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    await waitFor(() => api.panel.current.items.some((it) => it.kind === 'end'), 'the run to end', 60_000);
    const card = api.panel.current.items.find((it) => it.kind === 'tool');
    assert.ok(card && card.kind === 'tool' && card.terminal, JSON.stringify(card));
    await uiDone({ panel: [{ expectText: '.link-button.terminal', text: 'Show in terminal' }], screenshot: 'command-terminal' });

    // Closed by the user, the terminal comes back from the card's link with what it showed.
    terminal.dispose();
    await waitFor(() => !runTerminal(name), 'the terminal to close', 20_000);
    await uiDone({ panel: [{ click: '.link-button.terminal' }] });
    await waitFor(() => runTerminal(name), 'the terminal to open again', 20_000);
    assert.match(api.terminals.text(runId) ?? '', /second line/);
    await uiDone({ screenshot: 'command-terminal-reopened' });
  });
});
