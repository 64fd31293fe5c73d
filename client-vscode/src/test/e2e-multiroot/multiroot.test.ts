/**
 * A multi-root workspace (e2e/workspace-multiroot/multiroot.code-workspace: the folders
 * `api` and `web`), as a user goes through it: a run started from the palette in a file of
 * the SECOND folder works there (its AGENTS.md, its file), its edit is reviewed with the
 * lenses there, the status bar and the panel name the folder, the panel's folder picker
 * chooses another, and a folder added while the server runs can be run in. What the model
 * was told is read from the scripted model server, what is on disk from the disk, what the
 * user sees from the page.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { RunOutcome } from '../../runs';
import { modelRequests, script, setUpSuite, ui, uiDone, waitFor } from '../e2e/helpers';

const OLD = Array.from({ length: 12 }, (_, i) => `value_${i + 1} = ${i + 1}\n`).join('');
const NEW = OLD.replace('value_2 = 2\n', 'value_2 = 20\n').replace('value_9 = 9\n', 'value_9 = 90\nvalue_9b = 91\n');
/** NEW with its second change undone. */
const KEPT_FIRST = OLD.replace('value_2 = 2\n', 'value_2 = 20\n');

function folder(name: string): vscode.WorkspaceFolder {
  const found = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  if (!found) {
    throw new Error(`no workspace folder ${name}`);
  }
  return found;
}

function write(folderName: string, file: string, text: string): vscode.Uri {
  const full = path.join(folder(folderName).uri.fsPath, file);
  fs.writeFileSync(full, text);
  return vscode.Uri.file(full);
}

function onDiskIn(folderName: string, file: string): string {
  return fs.readFileSync(path.join(folder(folderName).uri.fsPath, file), 'utf8');
}

/** A lens of `file` whose tooltip starts with `start` ("Keep change 1"). */
function lens(start: string, file: string): string {
  const match = `[title^="${start} "][title$=" in ${file}"]`;
  return `.codelens-decoration a${match}, .codelens-decoration button${match}`;
}

/** The system prompt of the model's last request. */
async function lastSystemPrompt(): Promise<string> {
  const requests = await modelRequests();
  const messages = requests[requests.length - 1]?.body.messages ?? [];
  return messages
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

describe('A workspace of two folders', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
  });

  afterEach(async () => {
    await vscode.workspace.getConfiguration('agentls').update('confirmMode', undefined, vscode.ConfigurationTarget.Workspace);
    await api.review.decideAll('keep');
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
  });

  /** "Agent: Run…" from the palette, the prompt typed in its input box; the run's outcome
   * and the title of the input box the runner typed into. */
  async function paletteRun(prompt: string): Promise<{ outcome: RunOutcome; title: string }> {
    const before = api.lastOutcomeRunId();
    const real = api.ui.showInputBox;
    let title = '';
    api.ui.showInputBox = (options) => {
      title = options.title ?? '';
      return real(options);
    };
    try {
      await uiDone({ palette: 'Agent: Run…', type: prompt });
      await waitFor(() => api.lastOutcomeRunId() !== before && api.runs.activeRunIds.length === 0 && api.lastOutcomeRunId(), `the run "${prompt}" to end`, 120_000);
    } finally {
      api.ui.showInputBox = real;
    }
    return { outcome: api.runs.lastOutcome!, title };
  }

  it('is opened with its two folders, and the server was told of both', () => {
    assert.deepStrictEqual(
      vscode.workspace.workspaceFolders?.map((f) => f.name),
      ['api', 'web'],
    );
    assert.strictEqual(api.panel.folderPicker.shown, true);
  });

  it('a palette run from a file of the second folder works there, and its edit is reviewed with the lenses there', async function () {
    this.timeout(300_000);
    const web = folder('web');
    // Edits that need the user's word are the ones reviewed inline (the user settings say yolo).
    await vscode.workspace.getConfiguration('agentls').update('confirmMode', 'confirm-sensitive', vscode.ConfigurationTarget.Workspace);
    const uri = write('web', 'page.py', OLD);
    await vscode.window.showTextDocument(uri);
    await uiDone({ palette: 'Agent: New session' });
    // The path is the run's folder's: `page.py` is web/page.py, not api/page.py.
    await script([{ tool_calls: [{ name: 'write_file', arguments: { path: 'page.py', content: NEW } }] }, { text: 'Changed two values in web.' }]);
    const { outcome, title } = await paletteRun('Change two values');
    // The input box the runner typed into said where the run works.
    assert.match(title, /^Agent: Run in web · a new conversation/);
    assert.strictEqual(outcome.result?.status, 'success', JSON.stringify(outcome));
    assert.strictEqual(api.runs.lastParams?.folder, web.uri.toString(), JSON.stringify(api.runs.lastParams));
    assert.strictEqual(api.runs.lastParams?.activeFile, 'page.py');
    assert.strictEqual(outcome.result?.folder, web.uri.toString(), 'the server says the run worked in web');
    assert.ok(!fs.existsSync(path.join(folder('api').uri.fsPath, 'page.py')), 'nothing was written in the first folder');
    // The run read the second folder's instructions, not the first's.
    const system = await lastSystemPrompt();
    assert.match(system, /WEB-FOLDER-INSTRUCTIONS/);
    assert.doesNotMatch(system, /API-FOLDER-INSTRUCTIONS/);

    // The status bar names the folder, with what still waits.
    assert.match(api.statusText(), /Agent · \$\(folder\) web · done · 2 to review$/);
    ui({ expectStatusBar: 'web · done · 2 to review' });
    await waitFor(() => api.review.review(uri)?.pending === 2, 'two changes of web/page.py under review', 20_000);
    assert.match(api.outputText(), /━━ Agent run \S+ \(build, in web\) ━━/);
    assert.match(api.outputText(), /write_file page\.py: 2 changes waiting for your review/);
    ui({ expectVisible: lens('Keep change 1', 'page.py'), what: 'the lenses of web/page.py' });
    await uiDone({ screenshot: 'multiroot-lenses-in-second-folder' });

    // Undo one hunk, keep the other, each with a click on its lens; the file is saved.
    await uiDone({ click: lens('Undo change 2', 'page.py') });
    await waitFor(() => api.review.pendingCount === 1, 'change 2 undone', 20_000);
    await uiDone({ click: lens('Keep change 1', 'page.py') });
    await waitFor(() => api.review.pendingCount === 0, 'change 1 kept', 20_000);
    await waitFor(() => onDiskIn('web', 'page.py') === KEPT_FIRST, 'web/page.py saved with the kept change only', 10_000);
    await uiDone({ screenshot: 'multiroot-reviewed' });
  });

  it('the palette keeps one conversation per folder (a session lives in its folder)', async function () {
    this.timeout(300_000);
    await script([{ text: 'In api.' }, { text: 'Back in web.' }]);
    // From a file of api: not web's conversation, a new one in api.
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(folder('api').uri.fsPath, 'service.py')));
    const inApi = await paletteRun('Hello api');
    assert.match(inApi.title, /^Agent: Run in api · a new conversation/);
    assert.strictEqual(inApi.outcome.result?.folder, folder('api').uri.toString(), JSON.stringify(inApi.outcome));
    // Back in web's file: web's conversation goes on.
    const webFirst = api.runs.lastParams;
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(folder('web').uri.fsPath, 'page.py')));
    const inWeb = await paletteRun('Hello web');
    assert.match(inWeb.title, /^Agent: Run in web · continues the conversation/);
    assert.strictEqual(inWeb.outcome.result?.folder, folder('web').uri.toString());
    assert.notStrictEqual(inWeb.outcome.result?.sessionId, inApi.outcome.result?.sessionId);
    assert.ok(webFirst?.sessionId === undefined, 'the api run started its own session');
    assert.ok(api.runs.lastParams?.sessionId, 'the web run continued a session');
  });

  it('the panel runs in the active editor’s folder, names it on the run, and runs in the folder picked', async function () {
    this.timeout(300_000);
    const web = folder('web');
    const apiFolder = folder('api');
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await api.panel.pickFolder('auto');
    await vscode.window.showTextDocument(write('web', 'notes.py', 'x = 1\n'), { preserveFocus: true });
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({
      panel: [
        { expectText: '.folder-field', text: 'web (active editor)' },
      ],
    });
    await script([{ tool_calls: [{ name: 'write_file', arguments: { path: 'hello_web.md', content: '# Hello from web\n' } }] }, { text: 'Hello from web.' }]);
    const ends = (): number => api.panel.current.items.filter((it) => it.kind === 'end').length;
    await uiDone({ panel: [{ fill: '#prompt', text: 'Say hello' }, { press: '#prompt', key: 'Enter' }] });
    await waitFor(() => ends() === 1 && api.panel.current.runId === undefined, 'the panel run to end', 120_000);
    assert.strictEqual(api.runs.lastParams?.folder, web.uri.toString());
    assert.strictEqual(api.panel.current.folder?.uri, web.uri.toString());
    await uiDone({
      panel: [
        { expectText: '[data-kind="user"] .run-folder', text: 'in web' },
        // The conversation's session lives in web: the picker shows it and is locked.
        { expectText: '.folder-field', text: 'web' },
        { screenshot: 'multiroot-panel-run-in-web' },
      ],
    });
    assert.ok(fs.existsSync(path.join(web.uri.fsPath, 'hello_web.md')), 'the edit landed in web');
    // The card's Review link opens the file from the run's folder, not from the first.
    await uiDone({ panel: [{ expectText: '.tool-wrap .review', text: 'Review hello_web.md' }, { click: '.tool-wrap .review' }] });
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === path.join(web.uri.fsPath, 'hello_web.md'), 'web/hello_web.md to open from the edit card', 20_000);

    // A new session, the first folder picked: the next run works there whatever the editor.
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#folder', value: apiFolder.uri.toString() }] });
    await waitFor(() => api.panel.pickedFolder === apiFolder.uri.toString(), 'the pick to reach the extension', 10_000);
    await script([{ text: 'Hello from api.' }]);
    await uiDone({ panel: [{ fill: '#prompt', text: 'Say hello again' }, { press: '#prompt', key: 'Enter' }] });
    await waitFor(() => ends() === 1 && api.panel.current.runId === undefined && api.panel.current.items.length > 0, 'the second panel run to end', 120_000);
    assert.strictEqual(api.runs.lastParams?.folder, apiFolder.uri.toString());
    assert.strictEqual(api.runs.lastParams?.activeFile, undefined, 'a file of web is not the active file of a run in api');
    assert.match(await lastSystemPrompt(), /API-FOLDER-INSTRUCTIONS/);
    await uiDone({
      panel: [{ expectText: '[data-kind="user"] .run-folder', text: 'in api' }, { screenshot: 'multiroot-panel-run-in-api' }],
    });
    await api.panel.pickFolder('auto');
  });

  it('a folder added while the server runs can be run in, and a removed one leaves the picker', async function () {
    this.timeout(300_000);
    const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-e2e-extra-'));
    fs.writeFileSync(path.join(extra, 'AGENTS.md'), 'Marker for the end-to-end tests: EXTRA-FOLDER-INSTRUCTIONS.\n');
    const count = vscode.workspace.workspaceFolders?.length ?? 0;
    const added = new Promise<void>((resolve) => {
      const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
        sub.dispose();
        resolve();
      });
    });
    assert.ok(vscode.workspace.updateWorkspaceFolders(count, 0, { uri: vscode.Uri.file(extra), name: 'extra' }));
    await added;
    const extraUri = folder('extra').uri.toString();
    // A new conversation: the picker lists every folder (the last one's is locked to api).
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await waitFor(() => api.panel.folderPicker.options.some((o) => o.value === extraUri), 'the picker to list the added folder', 10_000);
    await api.panel.pickFolder(extraUri);
    await script([{ text: 'Hello from the added folder.' }]);
    // The language client sent workspace/didChangeWorkspaceFolders before this run's request.
    await api.panel.run('Say hello in the added folder');
    const end = api.panel.current.items.find((it) => it.kind === 'end');
    assert.strictEqual(end?.kind === 'end' ? end.status : undefined, 'success', JSON.stringify(end));
    assert.strictEqual(api.runs.lastParams?.folder, extraUri);
    assert.match(await lastSystemPrompt(), /EXTRA-FOLDER-INSTRUCTIONS/);

    const removed = new Promise<void>((resolve) => {
      const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
        sub.dispose();
        resolve();
      });
    });
    assert.ok(vscode.workspace.updateWorkspaceFolders(count, 1));
    await removed;
    await waitFor(() => !api.panel.folderPicker.options.some((o) => o.value === extraUri) || api.panel.folderPicker.locked, 'the picker to drop the folder', 10_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await waitFor(() => api.panel.pickedFolder === 'auto', 'the pick of a removed folder to fall back to the active editor’s', 10_000);
    assert.ok(!api.panel.folderPicker.options.some((o) => o.value === extraUri));
    // The panel's lists are asked of an open folder, never of the one removed.
    await waitFor(() => !api.panel.modelPicker.loading, 'the models listed again', 20_000);
    assert.ok(!api.panel.modelPicker.notes.some((n) => n.includes(extraUri)), JSON.stringify(api.panel.modelPicker.notes));
    await uiDone({ panel: [{ expectCount: `#folder option[value="${extraUri}"]`, count: 0 }, { screenshot: 'multiroot-folder-removed' }] });
    fs.rmSync(extra, { recursive: true, force: true });
  });
});
