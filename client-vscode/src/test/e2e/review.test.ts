import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { modelRequests, onDisk, script, setSetting, setUpSuite, ui, waitFor, workspaceRoot } from './helpers';

const OLD = Array.from({ length: 12 }, (_, i) => `value_${i + 1} = ${i + 1}\n`).join('');
const NEW = OLD.replace('value_2 = 2\n', 'value_2 = 20\n').replace('value_9 = 9\n', 'value_9 = 90\nvalue_9b = 91\n');

function write(name: string, text: string): vscode.Uri {
  const file = path.join(workspaceRoot(), name);
  fs.writeFileSync(file, text);
  return vscode.Uri.file(file);
}

function lens(tooltip: string): string {
  return `.codelens-decoration a[title="${tooltip}"], .codelens-decoration button[title="${tooltip}"]`;
}

/** The model's messages of its last request, as one JSON text. */
async function lastModelMessages(): Promise<string> {
  const requests = await modelRequests();
  return JSON.stringify(requests[requests.length - 1]?.body.messages ?? []);
}

describe('Inline review of agent edits', () => {
  let api: AgentlsApi;
  let answer: ((text: string) => void) | undefined;
  let realInput: AgentlsApi['ui']['showInputBox'];

  before(async function () {
    api = await setUpSuite(this);
    realInput = api.ui.showInputBox;
    // The agent creates it in the last test (and the undo deletes it again).
    fs.rmSync(path.join(workspaceRoot(), 'review_created.py'), { force: true });
  });

  beforeEach(async () => {
    // Each test is a conversation of its own: what the model is told is that test's.
    await vscode.commands.executeCommand('agentls.newSession');
    // Edits need confirmation; ask_user does not.
    await setSetting('confirmMode', 'confirm-sensitive');
    // agent/askUser holds the run until the test has decided: the model's next step then
    // comes after the decisions, without any timing.
    api.ui.showInputBox = () => new Promise<string | undefined>((resolve) => (answer = resolve));
  });

  afterEach(async () => {
    answer?.('go on');
    answer = undefined;
    api.ui.showInputBox = realInput;
    await api.review.decideAll('keep');
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
    await setSetting('confirmMode', undefined);
  });

  it('keeps one change and undoes another in one file; Ctrl+Z brings the undone one back; the model is told', async () => {
    const uri = write('review_one.py', OLD);
    const editor = await vscode.window.showTextDocument(uri);
    await script([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'review_one.py', content: NEW } }] },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'Go on?' } }] },
      { text: 'Thanks for the review.' },
    ]);
    const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Change two values', useSelection: false });
    await waitFor(() => api.review.pendingCount === 2, 'two changes under review', 60_000);
    // Answered at once: the run goes on to its question while the changes wait for the user.
    await waitFor(() => answer, 'the run to go on to its next step', 30_000);
    assert.strictEqual(editor.document.getText(), NEW, 'the buffer holds the proposal');
    assert.strictEqual(onDisk('review_one.py'), OLD, 'nothing is saved while changes are pending');
    assert.ok(editor.document.isDirty);

    ui({ expectVisible: lens('Keep change 1 in review_one.py'), what: 'the CodeLens of change 1' });
    ui({ expectVisible: '.monaco-editor .view-overlays .cdr', what: 'line decorations' });
    ui({ expectVisible: '[id="agentls.agentls.review"]:has-text("2 agent changes")', what: 'the status bar count' });
    ui({ screenshot: 'review-one-file' });
    ui({ click: lens('Keep change 1 in review_one.py') });
    await waitFor(() => api.review.pendingCount === 1, 'change 1 kept', 20_000);
    assert.strictEqual(editor.document.getText(), NEW, 'keep never changes the text');

    const second = api.review.review(uri)!.hunks[0];
    assert.ok(await vscode.commands.executeCommand('agentls.review.undoHunk', uri.toString(), second.key, editor.document.version));
    const undone = NEW.replace('value_9 = 90\nvalue_9b = 91\n', 'value_9 = 9\n');
    assert.strictEqual(editor.document.getText(), undone, 'undo restores exactly the old text');
    await waitFor(() => onDisk('review_one.py') === undone, 'the file saved after its last decision', 10_000);
    assert.strictEqual(
      await vscode.commands.executeCommand('agentls.review.keepHunk', uri.toString(), second.key, 1),
      false,
      'a CodeLens of an older version for a decided change does nothing',
    );

    // Ctrl+Z in the editor: the undone change is back, pending again.
    await vscode.window.showTextDocument(uri, { preserveFocus: false });
    ui({ press: 'Control+z' });
    await waitFor(() => api.review.pendingCount === 1, 'the undone change pending again', 20_000);
    assert.strictEqual(editor.document.getText(), NEW);
    ui({ expectVisible: lens('Keep change 2 in review_one.py'), what: 'the CodeLens of the change back' });
    ui({ screenshot: 'review-after-ctrl-z' });
    ui({ click: lens('Keep all changes in review_one.py') });
    await waitFor(() => onDisk('review_one.py') === NEW, 'saved after keep', 10_000);
    // The file is saved before the decision is sent: answer only once it is on its way,
    // as no person could answer within those milliseconds.
    const kept = (): number => api.review.sent.filter((p) => p.uri === uri.toString()).flatMap((p) => p.hunks).filter((h) => h.outcome === 'kept').length;
    await waitFor(() => kept() >= 2, 'the last keep told to the server', 10_000);

    answer!('go on');
    const outcome = await running;
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    const messages = await lastModelMessages();
    assert.match(messages, /The user reviewed your edits in the editor:/);
    assert.match(messages, /review_one\.py, hunk 1 \(\+1 −1 at line 2\): kept\./);
    // Undone, brought back with Ctrl+Z, then kept, all before the model's next step: it
    // hears what is true now, once.
    assert.match(messages, /review_one\.py, hunk 2 \(\+2 −1 at line 9\): kept\./);
    assert.doesNotMatch(messages, /hunk 2 \(\+2 −1 at line 9\): undone/);
    const results = JSON.stringify((await modelRequests())[1]?.body.messages ?? []);
    assert.match(results, /pending the user's review/);
  });

  it('reviews two files while the user types elsewhere: focus stays, typing outside and inside a change', async () => {
    const a = write('review_a.py', OLD);
    const b = write('review_b.py', OLD);
    const notes = write('review_notes.txt', '');
    const notesEditor = await vscode.window.showTextDocument(notes);
    await vscode.commands.executeCommand('type', { text: 'before ' });
    await script([
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: 'review_a.py', content: NEW } },
          { name: 'write_file', arguments: { path: 'review_b.py', content: OLD.replace('value_5 = 5\n', 'value_5 = 50\n').replace('value_7 = 7\n', '') } },
        ],
      },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'Go on?' } }] },
      { text: 'Noted.' },
    ]);
    const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Change values', useSelection: false });
    await waitFor(() => api.review.review(a)?.pending === 2, 'the first proposal', 60_000);
    await vscode.commands.executeCommand('type', { text: 'while ' });
    await waitFor(() => api.review.pendingCount === 4, 'both files under review', 60_000);
    await vscode.commands.executeCommand('type', { text: 'after' });
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), notes.toString(), 'focus stayed in the notes');
    assert.strictEqual(notesEditor.document.getText(), 'before while after', 'every keystroke landed where the user typed');
    assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === a.toString()), 'no editor was opened for the agent');
    ui({ expectVisible: '[id="agentls.agentls.review"]:has-text("4 agent changes")', what: 'the status bar counts both files' });

    const editor = await vscode.window.showTextDocument(a);
    // Outside a change: the user's own line, never shown as the agent's.
    await editor.edit((e) => e.insert(new vscode.Position(5, 0), '# mine\n'));
    assert.strictEqual(api.review.pendingCount, 4);
    // Inside change 2: it becomes "changed by you".
    const line = editor.document.getText().split('\n').findIndex((l) => l === 'value_9 = 90');
    await editor.edit((e) => e.insert(new vscode.Position(line, 'value_9 = 90'.length), '0'));
    await waitFor(() => api.review.review(a)?.hunks[1]?.changedByUser, 'change 2 changed by the user', 5000);
    ui({ expectVisible: lens('You edited change 2 in review_a.py'), what: 'the "changed by you" lens' });
    ui({ screenshot: 'review-changed-by-you' });
    ui({ click: lens('Keep all changes in review_a.py') });
    await waitFor(() => api.review.review(a)?.pending === 0, 'review_a.py kept', 20_000);
    const expected = NEW.replace('value_6 = 6\n', '# mine\nvalue_6 = 6\n').replace('value_9 = 90\n', 'value_9 = 900\n');
    assert.strictEqual(editor.document.getText(), expected, "the user's text is all there");
    await waitFor(() => onDisk('review_a.py') === expected, 'review_a.py saved', 10_000);
    const sentForA = (): unknown[][] => api.review.sent.filter((p) => p.uri === a.toString()).flatMap((p) => p.hunks.map((h) => [h.outcome, h.text]));
    await waitFor(() => sentForA().length === 2, 'both decisions sent', 10_000);
    assert.deepStrictEqual(
      sentForA(),
      [
        ['changedByUser', 'value_9 = 900\nvalue_9b = 91\n'],
        ['kept', undefined],
      ],
    );
    ui({ expectVisible: '[id="agentls.agentls.review"]:has-text("2 agent changes")', what: 'the count after one file' });
    await vscode.window.showTextDocument(b);
    ui({ expectVisible: lens('Undo change 2 in review_b.py'), what: 'the lens of the removal' });
    ui({ screenshot: 'review-removed-lines' });
    ui({ click: lens('Undo all changes in review_b.py') });
    await waitFor(() => api.review.pendingCount === 0, 'review_b.py undone', 20_000);
    await waitFor(() => onDisk('review_b.py') === OLD && !vscode.workspace.textDocuments.find((d) => d.uri.toString() === b.toString())?.isDirty, 'review_b.py back to its text, saved', 10_000);

    answer!('go on');
    const outcome = await running;
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    const messages = await lastModelMessages();
    assert.match(messages, /review_a\.py, hunk 2 \(\+2 −1 at line 9\): changed by the user; the region now reads/);
    assert.match(messages, /value_9 = 900/);
    assert.match(messages, /review_b\.py, hunk 1 \(\+1 −1 at line 5\): undone/);
    assert.strictEqual(notesEditor.document.getText(), 'before while after');
  });

  it('saves with format-on-save only after the last decision, and tells the model the save changed the file', async () => {
    await vscode.workspace.getConfiguration('files').update('trimTrailingWhitespace', true, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('editor').update('formatOnSave', true, vscode.ConfigurationTarget.Workspace);
    try {
      const uri = write('review_fmt.py', OLD);
      await vscode.window.showTextDocument(uri);
      await script([
        { tool_calls: [{ name: 'write_file', arguments: { path: 'review_fmt.py', content: OLD.replace('value_3 = 3\n', 'value_3 = 30   \n') } }] },
        { tool_calls: [{ name: 'ask_user', arguments: { question: 'Go on?' } }] },
        { text: 'Will re-read.' },
      ]);
      const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Change a value', useSelection: false });
      await waitFor(() => api.review.pendingCount === 1, 'the change under review', 60_000);
      await waitFor(() => answer, 'the run to go on', 30_000);
      assert.strictEqual(onDisk('review_fmt.py'), OLD, 'not saved (so not formatted) while pending');
      await vscode.commands.executeCommand('agentls.review.keepAll');
      await waitFor(() => onDisk('review_fmt.py') === OLD.replace('value_3 = 3\n', 'value_3 = 30\n'), 'saved and trimmed', 10_000);
      const sent = api.review.sent[api.review.sent.length - 1];
      assert.strictEqual(sent.saved, true);
      assert.strictEqual(sent.changedOnSave, true);
      answer!('go on');
      const outcome = await running;
      assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
      assert.match(await lastModelMessages(), /review_fmt\.py was saved and saving changed it/);
    } finally {
      await vscode.workspace.getConfiguration('files').update('trimTrailingWhitespace', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.workspace.getConfiguration('editor').update('formatOnSave', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('with waitForDecision the agent waits and its tool result says what was kept', async () => {
    await setSetting('review.waitForDecision', true);
    try {
      const uri = write('review_wait.py', OLD);
      await vscode.window.showTextDocument(uri);
      await script([{ tool_calls: [{ name: 'write_file', arguments: { path: 'review_wait.py', content: NEW } }] }, { text: 'Done.' }]);
      const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Change two values', useSelection: false });
      await waitFor(() => api.review.pendingCount === 2, 'two changes under review', 60_000);
      assert.strictEqual((await modelRequests()).length, 1, 'the agent waits for the decision');
      const [first, second] = api.review.review(uri)!.hunks;
      await vscode.commands.executeCommand('agentls.review.keepHunk', uri.toString(), first.key);
      await vscode.commands.executeCommand('agentls.review.undoHunk', uri.toString(), second.key);
      const outcome = await running;
      assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
      const messages = await lastModelMessages();
      assert.match(messages, /The user applied only part of this change to review_wait\.py\. review_wait\.py: kept hunks 1; rejected hunks 2/);
      assert.doesNotMatch(messages, /pending the user's review/);
    } finally {
      await setSetting('review.waitForDecision', undefined);
    }
  });

  it('undoing all of a file the agent created deletes it, and the model is told', async () => {
    const file = path.join(workspaceRoot(), 'review_created.py');
    assert.ok(!fs.existsSync(file));
    await script([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'review_created.py', content: 'created = True\n' } }] },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'Go on?' } }] },
      { text: 'Understood.' },
    ]);
    const running = vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Create a file', useSelection: false });
    await waitFor(() => api.review.pendingCount === 1, 'the new file under review', 60_000);
    await waitFor(() => answer, 'the run to go on to its next step', 30_000);
    const uri = vscode.Uri.file(file);
    assert.ok(await vscode.commands.executeCommand('agentls.review.undoFile', uri));
    await waitFor(() => !fs.existsSync(file), 'the created file deleted', 20_000);
    assert.strictEqual(api.review.sent[api.review.sent.length - 1]?.deleted, true);
    answer!('go on');
    const outcome = await running;
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    assert.match(await lastModelMessages(), /review_created\.py: you created it and the user undid all of it, so it was deleted\./);
  });
});
