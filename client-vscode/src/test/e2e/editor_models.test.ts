import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { RunOutcome } from '../../runs';
import { runOptions, SETTINGS_SENT } from '../../settings';
import { onDisk, setSetting, setUpSuite, uiDone, waitFor, workspaceRoot, writeFile } from './helpers';

// The scripted provider of e2e/lm-provider/ (installed beside agentls by scripts/vscode_e2e.sh).
const VENDOR = 'agentls-e2e';
const MODEL = `editor/${VENDOR}/scripted`;

interface ProviderCall {
  messages: { role: string; parts: Record<string, unknown>[] }[];
  tools: string[];
  cancelled: boolean;
  done: boolean;
}

async function providerLog(): Promise<ProviderCall[]> {
  return (await vscode.commands.executeCommand<ProviderCall[]>('agentlsE2eLm.log')) ?? [];
}

function sentSettings(api: AgentlsApi): number {
  return api.logText().split(SETTINGS_SENT).length - 1;
}

/** Choose `model` in the workspace settings and wait until the server has been sent it. */
async function useModel(api: AgentlsApi, model: string | undefined): Promise<void> {
  const before = sentSettings(api);
  await setSetting('model', model);
  await waitFor(() => sentSettings(api) > before, 'the settings to reach the server', 30_000);
}

function startRun(api: AgentlsApi, prompt: string): Promise<RunOutcome> {
  const client = api.server.current;
  assert.ok(client, 'the server runs');
  return api.runs.run(client, prompt, runOptions(api.settings()));
}

describe("The editor's models (vscode.lm)", () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
    writeFile('notes.md', 'old notes\n');
    await useModel(api, MODEL);
  });

  after(async () => {
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await useModel(api, undefined);
  });

  it('sees the scripted provider among the chat models', async () => {
    const models = await vscode.lm.selectChatModels({ vendor: VENDOR });
    assert.deepStrictEqual(
      models.map((m) => m.id),
      ['scripted'],
    );
  });

  it('runs on the editor model: the answer streams and a tool call edits a file', async function () {
    this.timeout(180_000);
    const calls = (await providerLog()).length;
    const write = { id: 'call_1', name: 'write_file', input: { path: 'notes.md', content: 'written by the editor model\n' } };
    await vscode.commands.executeCommand('agentlsE2eLm.script', [
      [{ text: 'I will write ' }, { text: 'the notes.\n' }, { toolCall: write }],
      [{ text: 'Done: the notes are written.\n' }],
    ]);
    const outcome = await startRun(api, 'Write the notes');

    assert.strictEqual(outcome.result?.status, 'success', JSON.stringify(outcome));
    assert.strictEqual(onDisk('notes.md'), 'written by the editor model\n');
    const output = api.outputText();
    assert.match(output, /I will write the notes\./);
    assert.match(output, /Done: the notes are written\./);
    const [first, second] = (await providerLog()).slice(calls);
    assert.ok(first.tools.includes('write_file'), JSON.stringify(first.tools));
    // The second call carries the tool call and its result, as vscode.lm parts.
    const asked = second.messages.flatMap((m) => m.parts).filter((p) => 'toolCall' in p);
    assert.deepStrictEqual(asked.at(-1), { toolCall: write });
    const told = second.messages.flatMap((m) => m.parts).filter((p) => 'toolResult' in p);
    assert.match(JSON.stringify(told.at(-1)), /call_1.*notes\.md/);
    // The run measured its context with the model's own counter.
    assert.ok(((await vscode.commands.executeCommand<number>('agentlsE2eLm.counted')) ?? 0) > 0);
  });

  it("is listed in the panel's model picker, and a run sent from the panel on it edits a file", async function () {
    this.timeout(240_000);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
    // The server lists the editor's models it asked the extension for (agent/editorModels);
    // the configured one (this suite's `agentls.model`) is the one shown as chosen. Not
    // chosen in the picker: a choice is remembered for the workspace, and the suites after
    // this one run on the scripted model server. The list asked after the setting changed
    // may still be on its way (the model worker answers it, loading litellm for an editor
    // model's facts), and the list before it already names the editor model: so wait for
    // the one that has it chosen.
    await waitFor(
      () =>
        !api.panel.modelPicker.loading &&
        api.panel.modelPicker.options.some((o) => o.id === MODEL && o.usable) &&
        api.panel.modelPicker.selected === MODEL,
      'the picker to list the editor model, chosen as configured',
      60_000,
    );
    await uiDone({
      panel: [
        { expectCount: `#model option[data-model="${MODEL}"]`, count: 1 },
        { screenshot: 'panel-editor-model' },
      ],
    });
    const calls = (await providerLog()).length;
    const write = { id: 'call_p', name: 'write_file', input: { path: 'panel.md', content: 'written from the panel\n' } };
    await vscode.commands.executeCommand('agentlsE2eLm.script', [
      [{ text: 'Writing from the panel.\n' }, { toolCall: write }],
      [{ text: 'Done from the panel.\n' }],
    ]);
    await uiDone({
      panel: [
        { fill: '#prompt', text: 'Write from the panel' },
        { press: '#prompt', key: 'Enter' },
      ],
    });
    await waitFor(() => fs.existsSync(path.join(workspaceRoot(), 'panel.md')), 'the panel run to write the file', 120_000);
    await waitFor(() => api.runs.activeRunIds.length === 0, 'the panel run to end', 60_000);
    assert.strictEqual(onDisk('panel.md'), 'written from the panel\n');
    // The editor's model answered both calls of the panel's run.
    assert.strictEqual((await providerLog()).length, calls + 2);
  });

  it('a run cancelled mid-stream cancels the editor request', async function () {
    this.timeout(180_000);
    const calls = (await providerLog()).length;
    await vscode.commands.executeCommand('agentlsE2eLm.script', [[{ text: 'Thinking it over.\n' }, { hang: true }]]);
    const running = startRun(api, 'Think slowly');
    const runId = await waitFor(() => api.runs.activeRunIds[0], 'the run to start', 20_000);
    // Streamed while the model call is still going.
    await waitFor(() => api.outputText().includes('Thinking it over.'), 'the streamed text', 90_000);
    assert.ok(api.runs.activeRunIds.includes(runId));
    await api.runs.cancel(runId);
    const outcome = await running;

    assert.ok(outcome.cancelled, JSON.stringify(outcome));
    await waitFor(async () => (await providerLog())[calls]?.cancelled, 'the provider to see the cancellation', 30_000);
    const call = (await providerLog())[calls];
    assert.strictEqual(call.done, false);
  });

  it("VS Code's refusal fails the run with a clear error, not retried", async function () {
    this.timeout(180_000);
    const calls = (await providerLog()).length;
    await vscode.commands.executeCommand('agentlsE2eLm.script', [[{ refuse: 'NoPermissions' }]]);
    const outcome = await startRun(api, 'Try it');

    assert.strictEqual(outcome.result?.status, 'failed', JSON.stringify(outcome));
    const output = outcome.result?.output ?? '';
    assert.match(output, /agentls-e2e\/scripted/);
    assert.match(output, /the scripted provider refuses \(NoPermissions\)/);
    // The refusal's kind crosses from the provider to agentls: the words say what to do.
    assert.match(output, /did not allow agentls to use the language model .*"Allow"/, output);
    assert.strictEqual((await providerLog()).length, calls + 1);
  });
});
