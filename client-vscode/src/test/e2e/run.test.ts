import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { modelRequests, onDisk, reviewMode, script, setSetting, setUpSuite, ui, uiDone, waitFor, workspaceRoot, writeFile } from './helpers';

describe('Agent: Run', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
    // The files the runs edit, as the tests expect them (also when this suite runs again).
    writeFile('greet.py', 'def greet(name):\n    return "Hello " + name\n');
    writeFile('calc.py', 'TOTAL = 1\n\n\ndef add(a, b):\n    return a + b\n');
    writeFile('shapes.py', 'def area(w, h):\n    return w * h\n');
  });

  afterEach(async () => {
    // A failed test must not leave its run behind for the next one (a run waiting in the
    // refactor preview only ends when the preview is answered).
    if (api.runs.activeRunIds.length > 0) {
      ui({ refactor: 'discard', ifOpen: true });
    }
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
    await setSetting('confirmMode', undefined);
  });

  it('runs a scripted task from the palette: status bar, output, saved edit, selection as context', async function () {
    // The real palette and input box, a run and the saved edit: slow on a busy machine.
    this.timeout(240_000);
    await script([
      {
        text: 'I will add a docstring.',
        tool_calls: [
          {
            name: 'edit_file',
            arguments: { path: 'greet.py', old_str: 'def greet(name):\n', new_str: 'def greet(name):\n    """Say hello."""\n' },
          },
        ],
      },
      { text: 'Done: greet() has a docstring now.', delay: 4 },
    ]);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(`${workspaceRoot()}/greet.py`));
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, 1, 30);
    const statusTexts = new Set<string>();
    const listener = api.runs.onDidChange(() => statusTexts.add(api.statusText()));
    const before = api.lastOutcomeRunId();
    try {
      // The real palette and input box, typed by playwright.
      ui({ palette: 'Agent: Run…', type: 'Add a docstring to greet' });
      const runId = await waitFor(() => api.runs.activeRunIds[0], 'a run to start', 20_000);
      await waitFor(() => api.runs.view(runId)?.current.step === 1, 'step 1', 150_000);
      ui({ expectStatusBar: 'step 1/10' });
      ui({ expectStatusBar: '', id: 'agentls.agentls.cancel' });
      ui({ screenshot: 'run-active' });
      await waitFor(() => api.lastOutcomeRunId() !== before && api.lastOutcomeRunId() === runId, 'the run to end', 60_000);
    } finally {
      listener.dispose();
    }
    const outcome = api.runs.lastOutcome!;
    assert.strictEqual(outcome.result?.status, 'success', JSON.stringify(outcome));
    assert.ok(
      [...statusTexts].some((t) => t === '$(sync~spin) Agent · step 1/10 · edit_file greet.py'),
      `status texts: ${JSON.stringify([...statusTexts])}`,
    );
    assert.match(api.statusText(), /^\$\(check\) Agent · done/);
    ui({ expectStatusBar: 'done' });

    // Saved to disk by saveAfterEdit (files.autoSave is off in the e2e settings).
    assert.match(onDisk('greet.py'), /"""Say hello\."""/);
    assert.strictEqual(document.isDirty, false);

    const output = api.outputText();
    assert.match(output, /▶ step 1\/10 edit_file greet\.py/);
    assert.match(output, /✓ edit_file/);
    assert.match(output, /I will add a docstring\./);
    assert.match(output, /Done: greet\(\) has a docstring now\./);

    const requests = await modelRequests();
    const first = JSON.stringify(requests[0]?.body.messages ?? []);
    assert.match(first, /Add a docstring to greet/);
    assert.match(first, /the selected lines 1-2 of greet\.py/);
  });

  it('accepts one edit and rejects another in the refactor preview', async () => {
    await setSetting('confirmMode', 'confirm-all');
    await reviewMode(api, 'refactorPreview');
    try {
      await refactorPreview();
    } finally {
      await reviewMode(api, undefined);
    }
  });

  async function refactorPreview(): Promise<void> {
    await script([
      { tool_calls: [{ name: 'edit_file', arguments: { path: 'calc.py', old_str: 'TOTAL = 1', new_str: 'TOTAL = 2' } }] },
      { tool_calls: [{ name: 'edit_file', arguments: { path: 'shapes.py', old_str: 'w * h', new_str: 'h * w' } }] },
      { text: 'Changed what you allowed.' },
    ]);
    const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', {
      prompt: 'Bump TOTAL and swap the factors',
      useSelection: false,
    });
    const runId = await waitFor(() => api.runs.activeRunIds[0], 'a run to start', 20_000);
    await waitFor(() => api.runs.view(runId)?.current.step === 1, 'step 1', 30_000);
    ui({ refactor: 'apply', screenshot: 'refactor-preview' });
    await waitFor(() => api.runs.view(runId)?.current.step === 2, 'step 2', 60_000);
    ui({ refactor: 'discard' });
    const outcome = await running;
    assert.ok(outcome?.result, 'the run returned a result');

    assert.match(onDisk('calc.py'), /^TOTAL = 2$/m, 'the accepted edit is saved to disk');
    assert.match(onDisk('shapes.py'), /return w \* h/, 'the rejected edit left the file alone');
    const output = api.outputText();
    const tail = output.slice(output.lastIndexOf('Bump TOTAL'));
    assert.match(tail, /▶ step 1\/10 edit_file calc\.py\n {2}✓ edit_file/);
    assert.match(tail, /▶ step 2\/10 edit_file shapes\.py\n {2}✗ edit_file/);
  }

  it('cancels a run', async () => {
    await script([{ text: 'counting '.repeat(300), chunk_size: 9, chunk_delay: 0.1 }]);
    const running = vscode.commands.executeCommand<{ cancelled: boolean; result?: { status: string } }>('agentls.run', {
      prompt: 'Count slowly',
      useSelection: false,
    });
    const runId = await waitFor(() => api.runs.activeRunIds[0], 'a run to start', 20_000);
    await waitFor(() => /counting counting/.test(api.outputText().slice(-2000)), 'streamed text', 30_000);
    await uiDone({ expectStatusBar: 'Agent', screenshot: 'run-streaming' });
    const cancelled = await vscode.commands.executeCommand<boolean>('agentls.cancel');
    assert.strictEqual(cancelled, true, 'agent/cancel answered cancelled: true');
    const outcome = await running;
    // The script streams 300 words; a run that stopped at the cancel showed fewer.
    const shown = api.outputText().slice(api.outputText().lastIndexOf('Count slowly'));
    assert.ok((shown.match(/counting/g) ?? []).length < 300, 'the stream stopped at the cancel');
    assert.strictEqual(outcome?.cancelled, true, JSON.stringify(outcome));
    assert.notStrictEqual(outcome?.result?.status, 'success');
    assert.strictEqual(api.statusText(), '$(circle-slash) Agent · cancelled');
    assert.deepStrictEqual(api.runs.activeRunIds, []);
    assert.ok(runId);
    ui({ expectStatusBar: 'cancelled' });
  });

  it('renders the plan and answers agent/askUser in an input box', async () => {
    await script([
      {
        tool_calls: [
          {
            name: 'update_plan',
            arguments: {
              goal: 'Greet the right person',
              steps: [
                { text: 'Read greet.py', status: 'done' },
                { text: 'Ask whom to greet', status: 'in_progress' },
                { text: 'Answer', status: 'pending' },
              ],
            },
          },
        ],
      },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'Whom should I greet?' } }] },
      { text: 'I will greet them.' },
    ]);
    const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', {
      prompt: 'Greet someone',
      useSelection: false,
    });
    const runId = await waitFor(() => api.runs.activeRunIds[0], 'a run to start', 20_000);
    await waitFor(() => api.runs.view(runId)?.current.state === 'awaiting_human', 'the question', 30_000);
    ui({ screenshot: 'ask-user' });
    ui({ input: 'Ada Lovelace' });
    const outcome = await running;
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    const output = api.outputText();
    assert.match(output, /Plan: Greet the right person\n {2}\[x\] Read greet\.py\n {2}\[~\] Ask whom to greet\n {2}\[ \] Answer/);
    const requests = await modelRequests();
    assert.match(JSON.stringify(requests[requests.length - 1].body.messages), /Ada Lovelace/);
  });

  it('runs with an agent picked from agent/agents', async () => {
    await script([{ text: 'Here is the plan.' }]);
    const picked: string[] = [];
    const realPick = api.ui.showQuickPick;
    const realInput = api.ui.showInputBox;
    api.ui.showQuickPick = async (items) => {
      picked.push(...items.map((i) => i.label));
      return items.find((i) => i.label === 'build');
    };
    api.ui.showInputBox = async () => 'Say something';
    try {
      const outcome = await vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.runWithAgent');
      assert.strictEqual(outcome?.result?.status, 'success');
    } finally {
      api.ui.showQuickPick = realPick;
      api.ui.showInputBox = realInput;
    }
    assert.ok(picked.includes('build'), `agents offered: ${picked.join(', ')}`);
  });
});
