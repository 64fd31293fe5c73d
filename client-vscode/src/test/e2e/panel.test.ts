import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { Conversation, Item } from '../../panel/model';
import { modelRequests, script, setSetting, setUpSuite, ui, uiDone, waitFor } from './helpers';

/** A title-bar action of the agent view, by its tooltip (the command's title). */
function titleAction(title: string): string {
  return `.part.sidebar .action-label[aria-label^="${title}"]`;
}

function ends(c: Conversation): Extract<Item, { kind: 'end' }>[] {
  return c.items.filter((it): it is Extract<Item, { kind: 'end' }> => it.kind === 'end');
}

/** Type a prompt in the panel and send it with Enter (as a user would). */
function typePrompt(text: string): Record<string, unknown>[] {
  return [
    { fill: '#prompt', text },
    { press: '#prompt', key: 'Enter' },
  ];
}

describe('the agent panel', () => {
  let api: AgentlsApi;
  let firstSession: string | undefined;

  before(async function () {
    api = await setUpSuite(this);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    // An empty conversation, whatever another suite left in the panel, and the confirm mode
    // of the user settings (the panel keeps the last one picked).
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
    await waitFor(() => api.panel.current.items.length === 0, 'an empty conversation', 20_000);
  });

  afterEach(async () => {
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
  });

  /** What the panel shows, for failure messages. */
  function shown(): string {
    return JSON.stringify(api.panel.current.items.map((it) => [it.kind, 'state' in it ? it.state : 'status' in it ? it.status : 'answer' in it ? it.answer : ''])).slice(-1500);
  }

  async function within<T>(probe: () => T | undefined | false, what: string): Promise<T> {
    try {
      return await waitFor(probe, what, 60_000);
    } catch (error) {
      const requests = await modelRequests().catch(() => []);
      const seen = requests.map((r) => {
        const m = r.body.messages ?? [];
        return `${r.path} ${m.length} msgs, last ${JSON.stringify(m.at(-1)).slice(0, 300)}`;
      });
      throw new Error(`${(error as Error).message}; the panel shows ${shown()}; model requests: ${seen.join(' || ')}`);
    }
  }

  /** The end of the conversation's run (a fresh conversation per test: one run, one end). */
  async function runEnds(count: number, what: string): Promise<Extract<Item, { kind: 'end' }>> {
    await within(() => ends(api.panel.current).length >= count && api.panel.current.runId === undefined, what);
    return ends(api.panel.current)[count - 1];
  }

  /** Wait for the question card, check what it asks (`expected`), screenshot it, answer. */
  async function answerQuestion(expected: { expectText: string; text: string }, screenshot: string, answer: string): Promise<void> {
    await within(() => api.panel.current.items.some((it) => it.kind === 'ask' && !it.answered), `the question card (${expected.text})`);
    await uiDone({
      panel: [expected, { screenshot }, { fill: '.card.ask textarea', text: answer }, { press: '.card.ask textarea', key: 'Enter' }],
    });
  }

  it('runs from the panel: streamed Markdown, tool cards, the plan checklist, a question answered in place', async () => {
    await script([
      {
        text: 'Let me **plan** this.\n\n```python\nprint("hi")\n```\n',
        chunk_size: 4,
        chunk_delay: 0.005,
        tool_calls: [
          {
            name: 'update_plan',
            arguments: { goal: 'Greet politely', steps: [{ text: 'Ask for the name', status: 'in_progress' }, { text: 'Write the greeting', status: 'pending' }] },
          },
        ],
      },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'Which name should the greeting use?' } }] },
      {
        tool_calls: [
          {
            name: 'update_plan',
            arguments: { goal: 'Greet politely', steps: [{ text: 'Ask for the name', status: 'done' }, { text: 'Write the greeting', status: 'done' }] },
          },
        ],
      },
      { text: 'All done: the greeting uses *welcome*. See [greet.py](greet.py).' },
    ]);
    await uiDone({ panel: [{ expectText: '.empty', text: 'Ask the agent' }, ...typePrompt('Plan a polite greeting')] });
    await answerQuestion({ expectText: '.card.ask', text: 'Which name should the greeting use?' }, 'panel-question', 'welcome');
    const end = await runEnds(1, 'the first panel run to end');
    assert.strictEqual(end.status, 'success', JSON.stringify(end));
    assert.ok((end.tokens ?? 0) > 0, 'tokens are shown');
    firstSession = api.panel.current.sessionId;
    assert.ok(firstSession, 'the run gave the conversation its session');

    const requests = await modelRequests();
    assert.match(JSON.stringify(requests[2]?.body.messages ?? []), /The user answered: welcome/);

    await uiDone({
      panel: [
        { expectText: '.msg.user', text: 'Plan a polite greeting' },
        { expectText: '.msg.assistant strong', text: 'plan' },
        { expectText: '.msg.assistant .code pre', text: 'print("hi")' },
        { expectText: '.msg.assistant', text: 'All done: the greeting uses' },
        { expectCount: '.card.plan .plan-step[data-status="done"]', count: 2 },
        { expectText: '.tool[data-tool="update_plan"] summary', text: 'done' },
        { expectText: '.card.ask .answer', text: 'You answered: welcome' },
        { expectText: '.run-end', text: 'tokens' },
        { screenshot: 'panel-run' },
      ],
    });
  });

  it('has New session, Past sessions, Worktree sessions and the log as actions in the view’s title bar', async () => {
    assert.ok(api.panel.current.items.length > 0, 'the first test left a conversation');
    for (const title of ['New session', 'Past sessions', 'Worktree sessions', 'Show output']) {
      await uiDone({ expectVisible: titleAction(title), what: `the title-bar action ${title}` });
    }
    await uiDone({ panel: [{ expectCount: '#new-session, #sessions-button, #worktrees-button', count: 0 }], click: titleAction('New session') });
    await waitFor(() => api.panel.current.items.length === 0, 'the New session action to empty the conversation', 20_000);
    await uiDone({ panel: [{ expectText: '.empty', text: 'Ask the agent' }] });

    await uiDone({ click: titleAction('Past sessions') });
    await uiDone({
      panel: [
        { expectText: '.sessions:not([hidden]) .card-title', text: 'Past sessions' },
        { expectText: `.sessions button.session[data-session="${firstSession}"]`, text: 'Plan a polite greeting' },
        { screenshot: 'panel-title-sessions' },
        { click: '.sessions .close-sessions' },
        { expectCount: '.sessions:not([hidden])', count: 0 },
      ],
    });
    await uiDone({ click: titleAction('Worktree sessions') });
    await uiDone({ panel: [{ expectText: '.worktrees:not([hidden]) .card-title', text: 'Worktree sessions' }] });
    await uiDone({ click: titleAction('Worktree sessions') });
    await uiDone({ panel: [{ expectCount: '.worktrees:not([hidden])', count: 0 }] });

    await vscode.commands.executeCommand('workbench.action.closePanel');
    await uiDone({ click: titleAction('Show output') });
    await uiDone({ expectVisible: '.part.panel .output-view', what: 'the Output view, after the Show output action' });
    await vscode.commands.executeCommand('workbench.action.closePanel');
  });

  it('lists the server’s models in the picker row under the prompt, remembers the choice and sends it with the run', async () => {
    await vscode.commands.executeCommand('agentls.panel.newSession');
    const picker = await waitFor(() => !api.panel.modelPicker.loading && api.panel.modelPicker, 'the model picker to be listed', 60_000);
    // A server without `agent/models` (before the server side of the picker is in): the
    // configured model is the one entry, the problem is said, and no `model` is sent.
    const listed = !picker.notes.some((note) => note.startsWith('The server did not list its models'));
    assert.ok(picker.options.some((o) => o.id === 'openai/e2e'), `the configured model is listed: ${JSON.stringify(picker)}`);
    await uiDone({
      panel: [
        ...picker.options.map((o) => ({ expectCount: `#model option[data-model="${o.id}"]`, count: 1 })),
        ...picker.options.filter((o) => !o.usable).map((o) => ({ expectCount: `#model option[data-model="${o.id}"]:disabled`, count: 1 })),
        { expectOneLine: ['#agent', '#confirm', '#model', 'button.send'] },
        ...(listed ? [] : [{ expectText: '#model-notes', text: 'did not list its models' }]),
        { screenshot: 'panel-model-picker' },
        { select: '#model', value: 'openai/e2e' },
      ],
    });
    await waitFor(() => api.panel.options.model === 'openai/e2e', 'the choice to be remembered for the workspace', 20_000);
    await script([{ text: 'Answered by the chosen model.' }]);
    await uiDone({ panel: typePrompt('Which model answers?') });
    const end = await runEnds(1, 'the run with the chosen model to end');
    assert.strictEqual(end.status, 'success', JSON.stringify(end));
    assert.strictEqual(api.runs.lastParams?.model, listed ? 'openai/e2e' : undefined, JSON.stringify(api.runs.lastParams));
    assert.strictEqual((await modelRequests()).at(-1)?.body.model, 'e2e');

    // Another configured model: the picker is listed again.
    await setSetting('model', 'openai/e2e-other');
    try {
      await waitFor(() => api.panel.modelPicker.options.some((o) => o.id === 'openai/e2e-other'), 'the picker to list the newly configured model', 60_000);
      await uiDone({ panel: [{ expectCount: '#model option[data-model="openai/e2e-other"]', count: 1 }] });
    } finally {
      await setSetting('model', undefined);
    }
    await waitFor(() => !api.panel.modelPicker.options.some((o) => o.id === 'openai/e2e-other'), 'the picker to drop the model no longer configured', 60_000);
  });

  it('asks approvals in the panel: one command allowed, another denied', async () => {
    await script([
      // Each command's approval first asks the model to explain it in plain words.
      { tool_calls: [{ name: 'execute_command', arguments: { command: 'echo allowed-by-panel' } }] },
      { text: 'Prints a word.' },
      { tool_calls: [{ name: 'execute_command', arguments: { command: 'echo denied-by-panel' } }] },
      { text: 'Prints another word.' },
      { text: 'Ran what you allowed.' },
    ]);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'confirm-all' }, ...typePrompt('Run two commands')] });
    await within(() => api.panel.current.items.some((it) => it.kind === 'approval' && it.answer === undefined), 'the first approval');
    await uiDone({
      panel: [
        { expectText: '.card.approval:not(.answered) .approval-text', text: 'echo allowed-by-panel' },
        { expectCount: '.card.approval:not(.answered) button.choice', count: 5 },
        { screenshot: 'panel-approval' },
        { click: '.card.approval:not(.answered) button[data-choice="Allow once"]' },
      ],
    });
    await within(
      () => api.panel.current.items.filter((it) => it.kind === 'approval').length === 2 && api.panel.current.items.some((it) => it.kind === 'approval' && it.answer === undefined),
      'the second approval',
    );
    await uiDone({
      panel: [
        { expectText: '.card.approval:not(.answered) .approval-text', text: 'echo denied-by-panel' },
        { click: '.card.approval:not(.answered) button[data-choice="Deny"]' },
      ],
    });
    const end = await runEnds(1, 'the approvals run to end');
    assert.strictEqual(end.status, 'success', JSON.stringify(end));
    const answers = api.panel.current.items.filter((it) => it.kind === 'approval').map((it) => (it.kind === 'approval' ? it.answer : ''));
    assert.deepStrictEqual(answers, ['Allow once', 'Deny']);
    const tools = JSON.stringify((await modelRequests()).at(-1)?.body.messages?.filter((m) => m.role === 'tool') ?? []);
    assert.match(tools, /allowed-by-panel/, tools);
    assert.match(tools, /denied/i, tools);
    await uiDone({
      panel: [
        { expectText: '.card.approval.answered .answer', text: 'You chose: Allow once' },
        { expectText: '.card.approval.answered .answer', text: 'You chose: Deny' },
        { select: '#confirm', value: 'yolo' },
      ],
    });
  });

  it('edits a command in the panel before it runs (Edit… then the question card)', async () => {
    await script([
      { tool_calls: [{ name: 'execute_command', arguments: { command: 'echo original' } }] },
      { text: 'Prints a word.' },
      { text: 'Ran your version.' },
    ]);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'confirm-all' }, ...typePrompt('Run a command')] });
    await within(() => api.panel.current.items.some((it) => it.kind === 'approval' && it.answer === undefined), 'the approval');
    await uiDone({ panel: [{ click: '.card.approval:not(.answered) button[data-choice="Edit…"]' }] });
    await answerQuestion({ expectText: '.card.ask .question', text: 'Edit the command' }, 'panel-edit-command', 'echo edited-in-panel');
    const end = await runEnds(1, 'the edited run to end');
    assert.strictEqual(end.status, 'success', JSON.stringify(end));
    const tools = JSON.stringify((await modelRequests()).at(-1)?.body.messages?.filter((m) => m.role === 'tool') ?? []);
    assert.match(tools, /edited-in-panel/, tools);
    assert.doesNotMatch(tools, /Exit code: 0\\noriginal/, tools);
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
  });

  it('links an edit step to the edited file', async () => {
    await script([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes/panel.md', content: '# Notes from the panel\n' } }] },
      { text: 'Wrote the notes.' },
    ]);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [...typePrompt('Write a note')] });
    const end = await runEnds(1, 'the edit run to end');
    assert.strictEqual(end.status, 'success', JSON.stringify(end));
    await uiDone({ panel: [{ expectText: '.tool-wrap .review', text: 'Review notes/panel.md' }, { click: '.tool-wrap .review' }] });
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.path.endsWith('/notes/panel.md'), 'the file to open from the edit card', 20_000);
    assert.match(vscode.window.activeTextEditor!.document.getText(), /Notes from the panel/);
  });

  it('stops a streaming run with the Stop button', async () => {
    // Varied text: the server cuts a stream that repeats one chunk over and over.
    const long = Array.from({ length: 400 }, (_, i) => `Sentence ${i} of a long answer.`).join(' ');
    await script([{ text: long, chunk_size: 5, chunk_delay: 0.03 }]);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [...typePrompt('Write a lot')] });
    await waitFor(() => api.panel.current.items.some((it) => it.kind === 'text' && it.text.length > 20), 'streamed text', 60_000);
    await uiDone({ panel: [{ expectText: '.msg.assistant.streaming', text: 'Sentence 0 of a long answer.' }, { screenshot: 'panel-streaming' }, { click: '.status-line button.stop' }] });
    const end = await runEnds(1, 'the stopped run to end');
    assert.strictEqual(end.status, 'cancelled', JSON.stringify(end));
    await uiDone({ panel: [{ expectText: '.run-end', text: 'Stopped' }] });
  });

  it('renders hostile model text inert (raw HTML, javascript: links)', async () => {
    await script([
      {
        text:
          'Careful: <img src=x onerror="alert(1)"> then [click me](javascript:alert(2)) and ' +
          '<a href="javascript:alert(3)">raw link</a> and <script>alert(4)</script> done.',
      },
    ]);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [...typePrompt('Say something odd')] });
    await runEnds(1, 'the hostile run to end');
    await uiDone({
      panel: [
        { expectText: '.msg.assistant', text: '<img src=x onerror="alert(1)">' },
        { expectText: '.msg.assistant', text: '<script>alert(4)</script>' },
        { expectCount: '.log img', count: 0 },
        { expectCount: '.log script', count: 0 },
        { expectCount: '.log a[href^="javascript"]', count: 0 },
        { expectCount: '.log [onerror]', count: 0 },
        { click: '.msg.assistant >> text=click me' },
        { screenshot: 'panel-hostile' },
      ],
    });
  });

  it('opens a past session read-only and continues it with one click', async () => {
    assert.ok(firstSession, 'the first test recorded a session');
    const session = firstSession as string;
    await vscode.commands.executeCommand('agentls.panel.sessions');
    await uiDone({
      panel: [
        { click: `button.session[data-session="${session}"]` },
      ],
    });
    await waitFor(() => api.panel.current.readOnly && api.panel.current.sessionId === session, 'the past session to open', 30_000);
    await uiDone({
      panel: [
        { expectText: '.readonly-bar', text: 'read-only' },
        { expectText: '.msg.user', text: 'Plan a polite greeting' },
        { expectText: '.msg.assistant', text: 'All done: the greeting uses' },
        { expectCount: '#prompt:disabled', count: 1 },
        { screenshot: 'panel-session-readonly' },
        { click: 'button.continue' },
      ],
    });
    await script([{ text: 'Continuing where we left off.' }]);
    const before = ends(api.panel.current).length;
    assert.strictEqual(before, 1, 'the stored run shows its end');
    await uiDone({ panel: typePrompt('And now say goodbye') });
    const end = await runEnds(before + 1, 'the continued run to end');
    assert.strictEqual(end.status, 'success');
    assert.strictEqual(api.panel.current.sessionId, session, 'the run continued the session');
    const messages = JSON.stringify((await modelRequests()).at(-1)?.body.messages ?? []);
    assert.match(messages, /Plan a polite greeting/, 'the model saw the earlier conversation');
    assert.match(messages, /And now say goodbye/);
    await uiDone({ panel: [{ expectText: '.msg.assistant', text: 'Continuing where we left off.' }] });
  });

  it('keeps the conversation when the view is hidden and shown again', async () => {
    const before = api.panel.current.items.length;
    await vscode.commands.executeCommand('workbench.view.explorer');
    await uiDone({ screenshot: 'panel-hidden' });
    await vscode.commands.executeCommand('agentls.panel.focus');
    await uiDone({
      panel: [
        { expectText: '.msg.assistant', text: 'Continuing where we left off.' },
        { expectText: '.msg.user', text: 'Plan a polite greeting' },
      ],
    });
    assert.strictEqual(api.panel.current.items.length, before);
  });

  it('follows the dark, light and high-contrast themes', async () => {
    const config = vscode.workspace.getConfiguration('workbench');
    try {
      await config.update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
      await uiDone({ panel: [{ expectText: '.msg.assistant', text: 'Continuing' }, { screenshot: 'panel-dark' }] });
      await config.update('colorTheme', 'Default Light Modern', vscode.ConfigurationTarget.Global);
      await uiDone({ panel: [{ expectText: '.msg.assistant', text: 'Continuing' }, { screenshot: 'panel-light' }] });
      await config.update('colorTheme', 'Default High Contrast', vscode.ConfigurationTarget.Global);
      await uiDone({ panel: [{ expectText: '.msg.assistant', text: 'Continuing' }, { screenshot: 'panel-high-contrast' }] });
    } finally {
      await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    }
    ui({ screenshot: 'panel-after-themes' });
  });
});
