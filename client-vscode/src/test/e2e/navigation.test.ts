import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { modelRequests, onDisk, script, setSetting, setUpSuite, ui, uiDone, waitFor, writeFile } from './helpers';

/**
 * Code navigation answered by VS Code's own providers (`agent/navigate`), here the built-in
 * TypeScript features of the VS Code build under test, on files where a search by name is
 * wrong: two classes with a `save` method, one reached through an alias of a re-export. A
 * rename comes back as the provider's WorkspaceEdit and is applied as one of the agent's
 * edits: one review, keep or undo per hunk.
 */
const FILES: Record<string, string> = {
  'nav/tsconfig.json': '{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs" }, "include": ["*.ts"] }\n',
  'nav/models.ts': [
    'export class Store {',
    '  save(item: string): number {',
    '    return item.length;',
    '  }',
    '}',
    '',
    'export class Cache {',
    '  save(item: string): number {',
    '    return 0;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'nav/api.ts': "export { Store } from './models';\n",
  'nav/app.ts': [
    "import { Store as Shelf } from './api';",
    "import { Cache } from './models';",
    '',
    'export function checkout(shelf: Shelf, cache: Cache): number {',
    "  const total = shelf.save('book');",
    "  cache.save('book');",
    '  return total;',
    '}',
    '',
  ].join('\n'),
  'nav/jobs.ts': [
    "import { Store } from './models';",
    '',
    'export function nightly(store: Store): number {',
    "  return store.save('backup');",
    '}',
    '',
  ].join('\n'),
};

function toolResults(messages: { role: string; content: unknown }[] | undefined): string[] {
  return (messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

/** A lens of `file` whose tooltip starts with `start` ("Keep change 1"). */
function lens(start: string, file: string): string {
  const match = `[title^="${start} "][title$=" in ${file}"]`;
  return `.codelens-decoration a${match}, .codelens-decoration button${match}`;
}

describe('code navigation from VS Code’s providers (TypeScript)', () => {
  let api: AgentlsApi;
  let models: vscode.Uri;

  before(async function () {
    api = await setUpSuite(this);
    this.timeout(300_000);
    for (const [name, text] of Object.entries(FILES)) {
      writeFile(name, text);
    }
    models = writeFile('nav/models.ts', FILES['nav/models.ts']);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(models));
    // The TypeScript server is up and has the project: it finds the use in jobs.ts.
    const app = vscode.Uri.joinPath(models, '..', 'jobs.ts');
    await waitFor(
      async () => {
        const found = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', models, new vscode.Position(1, 2));
        return (found ?? []).some((l) => l.uri.toString() === app.toString());
      },
      'TypeScript to know the project',
      180_000,
    );
  });

  afterEach(async () => {
    await api.review.decideAll('keep');
    await setSetting('confirmMode', undefined);
  });

  it('answers definition and references by meaning, and says VS Code answered', async function () {
    this.timeout(300_000);
    await setSetting('confirmMode', 'yolo');
    await script([
      { tool_calls: [{ name: 'navigate_code', arguments: { action: 'definition', path: 'nav/app.ts', symbol: 'save', line: 5 } }] },
      { tool_calls: [{ name: 'navigate_code', arguments: { action: 'references', path: 'nav/models.ts', symbol: 'Store.save' } }] },
      { text: 'Found them.' },
    ]);
    const outcome = await vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Where is save used?', useSelection: false });
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    const requests = await modelRequests();
    // The conversation goes on from the suites before: this run's results are the last.
    const [definition, references] = toolResults(requests[requests.length - 1].body.messages).slice(-2);
    assert.strictEqual(definition, 'Definitions of `save` (VS Code): 1\nnav/models.ts:2: save(item: string): number {');
    assert.strictEqual(
      references,
      [
        'References to `Store.save` (VS Code): 3',
        "nav/app.ts:5: const total = shelf.save('book');",
        "nav/jobs.ts:4: return store.save('backup');",
        'nav/models.ts:2: save(item: string): number {',
      ].join('\n'),
    );
  });

  it('renames across files as one reviewed change, kept or undone per hunk', async function () {
    this.timeout(300_000);
    await setSetting('confirmMode', 'confirm-sensitive');
    await script([
      { tool_calls: [{ name: 'rename_symbol', arguments: { path: 'nav/models.ts', symbol: 'Store.save', new_name: 'persist' } }] },
      { text: 'Renamed.' },
    ]);
    const outcome = await vscode.commands.executeCommand<{ result?: { status: string } }>('agentls.run', { prompt: 'Rename Store.save to persist', useSelection: false });
    assert.strictEqual(outcome?.result?.status, 'success', JSON.stringify(outcome));
    const requests = await modelRequests();
    const [renamed] = toolResults(requests[requests.length - 1].body.messages).slice(-1);
    assert.match(renamed, /^Renamed `save` to `persist` \(VS Code\): 3 occurrences in 3 files/);
    // One change of three files, each hunk waiting for the user.
    await waitFor(() => api.review.pendingCount === 3, 'three hunks under review', 30_000);
    const jobs = vscode.Uri.joinPath(models, '..', 'jobs.ts');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(models));
    ui({ expectVisible: lens('Keep change 1', 'models.ts'), what: 'the lenses of the rename in models.ts' });
    ui({ screenshot: 'navigation-rename-review-models' });
    await uiDone({ click: lens('Keep change 1', 'models.ts') });
    await waitFor(() => api.review.pendingCount === 2, 'models.ts kept', 20_000);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(jobs));
    ui({ expectVisible: lens('Undo change 1', 'jobs.ts'), what: 'the lenses of the rename in jobs.ts' });
    ui({ screenshot: 'navigation-rename-review-jobs' });
    await uiDone({ click: lens('Undo change 1', 'jobs.ts') });
    await waitFor(() => api.review.pendingCount === 1, 'jobs.ts undone', 20_000);
    await api.review.decideAll('keep');
    await waitFor(() => onDisk('nav/app.ts').includes("shelf.persist('book')") && onDisk('nav/models.ts').includes('persist(item: string)'), 'the kept hunks on disk', 20_000);
    assert.match(onDisk('nav/app.ts'), /const total = shelf\.persist\('book'\);\n {2}cache\.save\('book'\);/);
    assert.match(onDisk('nav/models.ts'), /export class Cache \{\n {2}save\(item: string\): number \{/);
    assert.match(onDisk('nav/jobs.ts'), /return store\.save\('backup'\);/);
  });
});
