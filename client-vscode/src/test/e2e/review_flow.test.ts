/**
 * The inline review as a user goes through it: runs from the palette and the panel, Keep
 * and Undo clicked on the lenses after the run ended, the next prompt, auto-save on, a
 * server restart. What the model was told is read from the scripted model server, what is
 * on disk from the disk, what the user sees from the page.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { Item } from '../../panel/model';
import type { RunOutcome } from '../../runs';
import type { PingResult } from '../../generated/protocol';
import { modelRequests, onDisk, script, setUpSuite, ui, uiDone, waitFor, workspaceRoot } from './helpers';

const OLD = Array.from({ length: 12 }, (_, i) => `value_${i + 1} = ${i + 1}\n`).join('');
const NEW = OLD.replace('value_2 = 2\n', 'value_2 = 20\n').replace('value_9 = 9\n', 'value_9 = 90\nvalue_9b = 91\n');
/** NEW with its second change undone. */
const KEPT_FIRST = OLD.replace('value_2 = 2\n', 'value_2 = 20\n');

function write(name: string, text: string): vscode.Uri {
  const file = path.join(workspaceRoot(), name);
  fs.writeFileSync(file, text);
  return vscode.Uri.file(file);
}

/** A lens of `file` whose tooltip starts with `start` ("Keep change 1"), whatever follows
 * the change's name (the lenses once said "change 1 of 2"). */
function lens(start: string, file: string): string {
  const match = `[title^="${start} "][title$=" in ${file}"]`;
  return `.codelens-decoration a${match}, .codelens-decoration button${match}`;
}

/** Any lens of `file`. */
function anyLens(file: string): string {
  return `.codelens-decoration a[title$=" in ${file}"], .codelens-decoration button[title$=" in ${file}"]`;
}

function lensTitled(tooltip: string): string {
  return `.codelens-decoration a[title="${tooltip}"], .codelens-decoration button[title="${tooltip}"]`;
}

type Message = { role: string; content: unknown };

async function lastMessages(): Promise<Message[]> {
  const requests = await modelRequests();
  return (requests[requests.length - 1]?.body.messages ?? []) as Message[];
}

function userTexts(messages: Message[]): string[] {
  return messages.filter((m) => m.role === 'user').map((m) => String(m.content));
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('Inline review from the first click to the next prompt', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
  });

  beforeEach(async () => {
    await vscode.workspace.getConfiguration('agentls').update('confirmMode', 'confirm-sensitive', vscode.ConfigurationTarget.Workspace);
  });

  afterEach(async () => {
    await api.review.decideAll('keep');
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
    await vscode.workspace.getConfiguration('agentls').update('confirmMode', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('files').update('autoSave', undefined, vscode.ConfigurationTarget.Workspace);
  });

  /** "Agent: Run…" from the palette, the prompt typed in its input box; the run's outcome. */
  async function paletteRun(prompt: string): Promise<RunOutcome> {
    const before = api.lastOutcomeRunId();
    await uiDone({ palette: 'Agent: Run…', type: prompt });
    await waitFor(() => api.lastOutcomeRunId() !== before && api.runs.activeRunIds.length === 0 && api.lastOutcomeRunId(), `the run "${prompt}" to end`, 120_000);
    return api.runs.lastOutcome!;
  }

  it('a palette run continues the conversation, and the review after a run reaches its next run as one note before the prompt', async function () {
    this.timeout(300_000);
    const uri = write('flow_calc.py', OLD);
    await vscode.window.showTextDocument(uri);
    await uiDone({ palette: 'Agent: New session' });
    await script([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'flow_calc.py', content: NEW } }] },
      { text: 'Changed two values.' },
      { text: 'Noted.' },
    ]);
    const outputBefore = api.outputText().length;
    const first = await paletteRun('Change two values');
    assert.strictEqual(first.result?.status, 'success', JSON.stringify(first));
    assert.strictEqual(api.review.pendingCount, 2);
    // The status bar says what still matters: two changes wait.
    assert.match(api.statusText(), /done · 2 to review$/);
    ui({ expectStatusBar: 'done · 2 to review' });
    // The Output channel speaks to the user, not to the model.
    const output = api.outputText().slice(outputBefore);
    assert.match(output, /✓ write_file flow_calc\.py: 2 changes waiting for your review\n/);
    assert.doesNotMatch(output, /It is in the editor's buffer|you will be told/);
    ui({ expectVisible: lens('Keep change 1', 'flow_calc.py'), what: 'the lenses of the changes' });
    ui({ screenshot: 'flow-run-ended' });

    // After the run: undo change 2, keep change 1, each with a click on its lens.
    await uiDone({ click: lens('Undo change 2', 'flow_calc.py') });
    await waitFor(() => api.review.pendingCount === 1, 'change 2 undone', 20_000);
    await uiDone({ click: lens('Keep change 1', 'flow_calc.py') });
    await waitFor(() => api.review.pendingCount === 0, 'change 1 kept', 20_000);
    await waitFor(() => onDisk('flow_calc.py') === KEPT_FIRST, 'the file saved after its last decision', 10_000);
    // Nothing told yet: the decisions wait for the conversation's next run.
    await waitFor(() => /Your review waits for the agent \(told when you next talk to it\): flow_calc\.py: 1 undone/.test(api.outputText()), 'the Output line of the waiting review', 10_000);

    const second = await paletteRun('Now what?');
    assert.strictEqual(second.result?.status, 'success', JSON.stringify(second));
    assert.strictEqual(second.result?.sessionId, first.result?.sessionId, 'the palette continued its conversation');
    const messages = await lastMessages();
    const users = userTexts(messages);
    assert.ok(users.includes('Change two values'), `the earlier conversation is there: ${JSON.stringify(users)}`);
    assert.strictEqual(users[users.length - 1], 'Now what?');
    const note = users[users.length - 2];
    assert.strictEqual(count(note, 'The user reviewed your edits in the editor:'), 1, note);
    assert.strictEqual(count(note, 'Read a file again before you edit it further.'), 1, note);
    assert.match(note, /flow_calc\.py, hunk 1 \(\+1 −1 at line 2\): kept\./);
    assert.match(note, /flow_calc\.py, hunk 2 \(\+2 −1 at line 9\): undone; that region has its text from before your edit again\./);
    assert.strictEqual(
      users.filter((u) => u.includes('The user reviewed your edits')).length,
      1,
      'the review is told once, in one message',
    );
    await waitFor(() => /◆ Told the agent your review \(run [^)]+\): flow_calc\.py: 1 kept, 1 undone/.test(api.outputText()), 'the Output line of the told review', 10_000);
    // The palette took the focus right after the last click: the lenses went all the same.
    ui({ expectGone: anyLens('flow_calc.py'), what: 'no lens left on the decided file' });
    ui({ screenshot: 'flow-told-in-output' });
  });

  it('the panel shows what the agent was told, and its undo button says it undoes only the rest', async function () {
    this.timeout(300_000);
    const uri = write('flow_panel.py', OLD);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.window.showTextDocument(uri, { preserveFocus: true });
    await script([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'flow_panel.py', content: NEW } }] },
      { text: 'Changed two values.' },
      { text: 'Understood.' },
    ]);
    const ends = (): Extract<Item, { kind: 'end' }>[] => api.panel.current.items.filter((it): it is Extract<Item, { kind: 'end' }> => it.kind === 'end');
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({
      panel: [
        { select: '#confirm', value: 'confirm-sensitive' },
        { fill: '#prompt', text: 'Change two values' },
        { press: '#prompt', key: 'Enter' },
      ],
    });
    await waitFor(() => ends().length === 1 && api.panel.current.runId === undefined, 'the panel run to end', 120_000);
    await waitFor(() => api.review.review(uri)?.pending === 2, 'two changes under review', 20_000);
    await uiDone({ click: lens('Undo change 2', 'flow_panel.py') });
    await uiDone({ click: lens('Keep change 1', 'flow_panel.py') });
    await waitFor(() => api.review.pendingCount === 0, 'both decided', 20_000);
    await waitFor(() => onDisk('flow_panel.py') === KEPT_FIRST, 'saved after the last decision', 10_000);
    // The undo button now says what it would do.
    await uiDone({
      panel: [
        { expectText: '.run-end button.undo', text: 'Undo the rest of this run' },
        { expectText: '.undo-detail', text: 'You already undid part of this run in flow_panel.py' },
        { screenshot: 'flow-panel-undo-the-rest' },
      ],
    });

    await uiDone({ panel: [{ fill: '#prompt', text: 'Anything else?' }, { press: '#prompt', key: 'Enter' }] });
    await waitFor(() => ends().length === 2 && api.panel.current.runId === undefined, 'the second panel run to end', 120_000);
    const users = userTexts(await lastMessages());
    assert.strictEqual(users[users.length - 1], 'Anything else?');
    assert.match(users[users.length - 2], /^The user reviewed your edits in the editor:\n- flow_panel\.py, hunk 1 .*kept\.\n- flow_panel\.py, hunk 2 .*undone/);
    const kinds = api.panel.current.items.map((it) => it.kind);
    assert.strictEqual(kinds[kinds.lastIndexOf('user') - 1], 'review', `told before the prompt: ${kinds.join(',')}`);
    await uiDone({
      panel: [
        { expectText: '[data-kind="review"] summary', text: 'Told the agent your review: flow_panel.py: 1 kept, 1 undone' },
        { click: '[data-kind="review"] summary' },
        { expectText: '.review-text', text: 'hunk 2 (+2 −1 at line 9): undone' },
        { screenshot: 'flow-panel-told' },
      ],
    });

    // Undo the rest: the restore is itself reviewed inline; keeping it puts the file back.
    await uiDone({ panel: [{ click: '.run-end button.undo' }] });
    await waitFor(() => (api.review.review(uri)?.pending ?? 0) > 0, 'the undo under review', 60_000);
    await uiDone({ click: lensTitled('Keep all changes in flow_panel.py') });
    await waitFor(() => onDisk('flow_panel.py') === OLD, 'the file as before the run', 20_000);
    ui({ expectGone: anyLens('flow_panel.py'), what: 'no lens left on the decided file' });
    await uiDone({ panel: [{ expectText: '.run-end.restore', text: 'Undone: run' }, { screenshot: 'flow-panel-undone' }] });
  });

  it('with files.autoSave afterDelay the model and the user are told the pending text is on disk', async function () {
    this.timeout(300_000);
    await vscode.workspace.getConfiguration('files').update('autoSave', 'afterDelay', vscode.ConfigurationTarget.Workspace);
    const uri = write('flow_delay.py', OLD);
    await vscode.window.showTextDocument(uri);
    await uiDone({ palette: 'Agent: New session' });
    await script([{ tool_calls: [{ name: 'write_file', arguments: { path: 'flow_delay.py', content: NEW } }] }, { text: 'Changed.' }]);
    const outputBefore = api.outputText().length;
    const run = await paletteRun('Change two values');
    assert.strictEqual(run.result?.status, 'success', JSON.stringify(run));
    // Auto-save wrote the pending text, and the model knows.
    assert.strictEqual(onDisk('flow_delay.py'), NEW);
    const requests = await modelRequests();
    const result = JSON.stringify((requests[1]?.body.messages ?? []).filter((m) => m.role === 'tool'));
    assert.match(result, /already saved to disk and commands you run see your text/);
    assert.doesNotMatch(result, /not saved to disk until they decide/);
    ui({ expectVisible: '.tabs-container .tab[aria-label*="flow_delay.py"]:not(.dirty)', what: 'the tab of the saved file has no unsaved dot' });
    assert.match(api.outputText().slice(outputBefore), /flow_delay\.py: 2 changes waiting for your review \(already saved by auto-save\)/);
    await uiDone({ hover: '[id="agentls.agentls.review"]', screenshot: 'flow-autosave-after-delay' });

    await uiDone({ click: lens('Undo change 2', 'flow_delay.py') });
    // The undo reaches the disk too: no rejected text stays there.
    await waitFor(() => onDisk('flow_delay.py') === KEPT_FIRST, 'the undo saved by auto-save', 10_000);
    await uiDone({ click: lens('Keep change 1', 'flow_delay.py') });
    await waitFor(() => api.review.pendingCount === 0, 'all decided', 10_000);
    assert.strictEqual(onDisk('flow_delay.py'), KEPT_FIRST);
  });

  it('with files.autoSave onFocusChange the model is told the file reaches the disk when focus leaves', async function () {
    this.timeout(300_000);
    await vscode.workspace.getConfiguration('files').update('autoSave', 'onFocusChange', vscode.ConfigurationTarget.Workspace);
    const notes = write('flow_focus_notes.txt', 'notes\n');
    const uri = write('flow_focus.py', OLD);
    await vscode.window.showTextDocument(notes, { viewColumn: vscode.ViewColumn.Two });
    await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One });
    await uiDone({ palette: 'Agent: New session' });
    await script([{ tool_calls: [{ name: 'write_file', arguments: { path: 'flow_focus.py', content: NEW } }] }, { text: 'Changed.' }]);
    const outputBefore = api.outputText().length;
    const run = await paletteRun('Change two values');
    assert.strictEqual(run.result?.status, 'success', JSON.stringify(run));
    const requests = await modelRequests();
    const result = JSON.stringify((requests[1]?.body.messages ?? []).filter((m) => m.role === 'tool'));
    assert.match(result, /auto-saves changed files when focus leaves the editor or the window/);
    assert.doesNotMatch(result, /not saved to disk until they decide/);
    assert.match(api.outputText().slice(outputBefore), /flow_focus\.py: 2 changes waiting for your review \(auto-save saves them when focus leaves the editor\)/);

    await uiDone({ click: lens('Undo change 2', 'flow_focus.py') });
    await waitFor(() => api.review.pendingCount === 1, 'change 2 undone', 10_000);
    // Focus leaves the agent's file for the notes: auto-save writes what the buffer holds.
    await uiDone({ click: '.monaco-editor[data-uri$="flow_focus_notes.txt"] .view-lines' });
    await waitFor(() => onDisk('flow_focus.py') === KEPT_FIRST, 'the file saved when focus left it', 10_000);
    ui({ expectGone: lens('Undo change 2', 'flow_focus.py'), what: 'the lens of the undone change, with the focus elsewhere' });
    ui({ screenshot: 'flow-autosave-focus-change' });
    await uiDone({ click: lens('Keep change 1', 'flow_focus.py') });
    await waitFor(() => api.review.pendingCount === 0, 'all decided', 10_000);
  });

  it('no lens shows a count the status bar has moved past after a click', async function () {
    this.timeout(300_000);
    const three = NEW.replace('value_12 = 12\n', 'value_12 = 120\n');
    const uri = write('flow_lens.py', OLD);
    await vscode.window.showTextDocument(uri);
    await uiDone({ palette: 'Agent: New session' });
    await script([{ tool_calls: [{ name: 'write_file', arguments: { path: 'flow_lens.py', content: three } }] }, { text: 'Changed.' }]);
    await paletteRun('Change three values');
    await waitFor(() => api.review.pendingCount === 3, 'three changes', 20_000);
    ui({ expectVisible: lens('Keep change 1', 'flow_lens.py'), what: 'the lens of change 1' });
    const samples = JSON.parse(
      await uiDone({
        watch: {
          click: lens('Keep change 1', 'flow_lens.py'),
          lenses: '.codelens-decoration a, .codelens-decoration button',
          status: '[id="agentls.agentls.review"]',
          ms: 2000,
        },
      }),
    ) as Array<{ t: number; lenses: Array<{ text: string; tooltip: string }>; status: string }>;
    ui({ screenshot: 'flow-lenses-after-click' });
    assert.ok(samples.length > 10, `sampled ${samples.length} frames`);
    const stale = samples.filter((s) => {
      const shown = Number(/(\d+) agent change/.exec(s.status)?.[1] ?? NaN);
      return s.lenses.some((l) => {
        const counted = /(\d+) agent changes? to review/.exec(l.text) ?? / of (\d+) in /.exec(l.tooltip);
        return counted !== null && Number(counted[1]) !== shown;
      });
    });
    assert.deepStrictEqual(
      stale.slice(0, 2).map((s) => [s.t, s.status, s.lenses.map((l) => l.text || l.tooltip)]),
      [],
      `${stale.length} of ${samples.length} frames showed a count the status bar no longer had`,
    );
    const last = samples[samples.length - 1];
    assert.match(last.status, /2 agent changes/);
    assert.ok(!last.lenses.some((l) => /change 1 /.test(l.tooltip)), 'the lenses of the kept change are gone');
  });

  it('a decision reaches a run of another conversation once; one the server cannot know is shown as not told', async function () {
    this.timeout(300_000);
    const uri = write('flow_other.py', OLD);
    await vscode.window.showTextDocument(uri);
    await uiDone({ palette: 'Agent: New session' });
    await script([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'flow_other.py', content: NEW } }] },
      { text: 'Changed.' },
      { text: 'A new conversation.' },
    ]);
    const first = await paletteRun('Change two values');
    await uiDone({ click: lens('Undo change 2', 'flow_other.py') });
    await waitFor(() => api.review.pendingCount === 1, 'change 2 undone', 10_000);

    // The user starts over: the next run is of another conversation, and still hears it.
    await uiDone({ palette: 'Agent: New session' });
    const second = await paletteRun('Something else');
    assert.notStrictEqual(second.result?.sessionId, first.result?.sessionId);
    const users = userTexts(await lastMessages());
    assert.deepStrictEqual(users.length, 2, JSON.stringify(users));
    assert.match(users[0], /^The user reviewed edits made in another conversation in this workspace/);
    assert.match(users[0], /flow_other\.py, hunk 2 \(\+2 −1 at line 9\): undone; that region has its text from before that edit again\./);
    assert.strictEqual(users[1], 'Something else');
    await waitFor(() => /◆ Told the agent your review \(run [^)]+\) \(in another conversation/.test(api.outputText()), 'the Output line', 10_000);

    // The server restarts: it never sent the change still pending, so a decision about it
    // cannot reach any model, and the user is told.
    const old = api.server.current;
    await uiDone({ palette: 'Agent: Restart server' });
    const client = await waitFor(() => api.server.current !== old && api.server.current, 'the new server', 60_000);
    await waitFor(async () => (await client.sendRequest<PingResult>('agent/ping', {})).pong, 'the new server to answer', 60_000);
    await uiDone({ click: lens('Keep change 1', 'flow_other.py') });
    await waitFor(() => /◆ Not told to the agent \(the agent server was restarted since it made those changes\): flow_other\.py: 1 kept/.test(api.outputText()), 'the Output line of the lost decision', 20_000);
    await uiDone({ palette: 'Notifications: Show Notifications' });
    ui({
      expectVisible: '.notifications-center .notification-list-item:has-text("could not be told to the agent")',
      what: 'the warning that the review was not told',
    });
    ui({ screenshot: 'flow-not-told' });
    await uiDone({ press: 'Escape' });
    // The next suite must find a server whose model worker is up.
    await client.sendNotification('agent/prepare', {});
    await waitFor(async () => (await client.sendRequest<PingResult>('agent/ping', {})).llmReady, 'the model worker', 240_000);
  });
});
