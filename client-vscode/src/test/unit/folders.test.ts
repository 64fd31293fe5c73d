import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { folderOfPath, isInside, resolveInFolders } from '../../folderPaths';
import { AUTO_FOLDER, folderByUri, folderLabel, folderPicker, runFolder, severalFolders, type FolderRef } from '../../folders';
import { emptyConversation, reduce } from '../../panel/model';
import { finalStatusText, RunView } from '../../runView';
import { runResult } from './results';

const API: FolderRef = { uri: 'file:///ws/api', name: 'api', path: '/ws/api' };
const WEB: FolderRef = { uri: 'file:///ws/web', name: 'web', path: '/ws/web' };
const BOTH = [API, WEB];

describe('runFolder', () => {
  it('takes the folder picked, else the active editor’s, else the first', () => {
    assert.equal(runFolder(BOTH, { picked: WEB.uri, active: API.uri }), WEB);
    assert.equal(runFolder(BOTH, { picked: AUTO_FOLDER, active: WEB.uri }), WEB);
    assert.equal(runFolder(BOTH, { active: WEB.uri }), WEB);
    assert.equal(runFolder(BOTH, {}), API);
    assert.equal(runFolder([], {}), undefined);
  });

  it('passes over a picked folder that is no longer open', () => {
    assert.equal(runFolder(BOTH, { picked: 'file:///ws/gone', active: WEB.uri }), WEB);
    assert.equal(runFolder([API], { picked: WEB.uri }), API);
    assert.equal(folderByUri(BOTH, 'file:///ws/gone'), undefined);
  });
});

describe('folderLabel', () => {
  it('is the name, with the parent when two folders share it', () => {
    assert.equal(folderLabel(BOTH, WEB), 'web');
    const a: FolderRef = { uri: 'file:///one/app', name: 'app', path: '/one/app' };
    const b: FolderRef = { uri: 'file:///two/app', name: 'app', path: '/two/app' };
    assert.equal(folderLabel([a, b], a), 'app (one)');
    assert.equal(folderLabel([a, b], b), 'app (two)');
    const win: FolderRef = { uri: 'file:///c%3A/x/app', name: 'app', path: 'C:\\x\\app' };
    assert.equal(folderLabel([a, win], win), 'app (x)');
  });
});

describe('folderOfPath and resolveInFolders', () => {
  it('knows a folder from a folder whose name starts the same', () => {
    const apiV2: FolderRef = { uri: 'file:///ws/api2', name: 'api2', path: '/ws/api2' };
    assert.equal(isInside('/ws/api', '/ws/api2/x.py', '/'), false);
    assert.equal(isInside('/ws/api', '/ws/api/x.py', '/'), true);
    assert.equal(isInside('/ws/api', '/ws/api/..x/y.py', '/'), true);
    assert.equal(folderOfPath([API, apiV2], '/ws/api2/x.py', '/'), apiV2);
    assert.equal(folderOfPath(BOTH, '/elsewhere/x.py', '/'), undefined);
  });

  it('takes the innermost of nested folders', () => {
    const inner: FolderRef = { uri: 'file:///ws/api/sub', name: 'sub', path: '/ws/api/sub' };
    assert.equal(folderOfPath([API, inner], '/ws/api/sub/x.py', '/'), inner);
    assert.equal(folderOfPath([inner, API], '/ws/api/x.py', '/'), API);
  });

  it('resolves a relative path against the run’s folder, not the first', () => {
    assert.equal(resolveInFolders(BOTH, WEB, 'src/app.ts', '/'), '/ws/web/src/app.ts');
    assert.equal(resolveInFolders(BOTH, API, 'src/app.ts', '/'), '/ws/api/src/app.ts');
  });

  it('refuses what lies outside every folder', () => {
    assert.equal(resolveInFolders(BOTH, WEB, '../../etc/passwd', '/'), undefined);
    assert.equal(resolveInFolders(BOTH, WEB, '/etc/passwd', '/'), undefined);
    assert.equal(resolveInFolders(BOTH, undefined, 'a.py', '/'), undefined);
    // An absolute path of another open folder is a workspace file.
    assert.equal(resolveInFolders(BOTH, WEB, '/ws/api/a.py', '/'), '/ws/api/a.py');
  });

  it('reads Windows paths', () => {
    const c: FolderRef = { uri: 'file:///c%3A/ws/web', name: 'web', path: 'C:\\ws\\web' };
    assert.equal(resolveInFolders([c], c, 'src/app.ts', '\\'), 'C:\\ws\\web\\src\\app.ts');
    assert.equal(folderOfPath([c], 'C:\\ws\\web\\a.ts', '\\'), c);
  });
});

describe('folderPicker', () => {
  it('is not shown with one folder', () => {
    const picker = folderPicker([API], {});
    assert.equal(picker.shown, false);
    assert.equal(severalFolders([API]), false);
  });

  it('names the folder “auto” stands for now', () => {
    const picker = folderPicker(BOTH, { picked: AUTO_FOLDER, active: WEB.uri });
    assert.equal(picker.shown, true);
    assert.equal(picker.locked, false);
    assert.equal(picker.selected, AUTO_FOLDER);
    assert.deepEqual(
      picker.options.map((o) => [o.value, o.label]),
      [
        [AUTO_FOLDER, 'web (active editor)'],
        [API.uri, 'api'],
        [WEB.uri, 'web'],
      ],
    );
    assert.match(picker.title, /next run works in web \(\/ws\/web\)/);
    assert.equal(folderPicker(BOTH, {}).options[0].label, 'api (first folder)');
  });

  it('shows a picked folder, and auto when the picked one is gone', () => {
    assert.equal(folderPicker(BOTH, { picked: WEB.uri, active: API.uri }).selected, WEB.uri);
    assert.equal(folderPicker(BOTH, { picked: 'file:///ws/gone' }).selected, AUTO_FOLDER);
  });

  it('is locked to the conversation’s folder', () => {
    const picker = folderPicker(BOTH, { picked: AUTO_FOLDER, active: API.uri }, WEB);
    assert.equal(picker.locked, true);
    assert.equal(picker.selected, WEB.uri);
    assert.deepEqual(picker.options.map((o) => o.value), [WEB.uri]);
    assert.match(picker.title, /works in web.*New session/);
    assert.match(folderPicker([API], {}, WEB).title, /no longer in the workspace/);
  });
});

describe('the folder of a run on screen', () => {
  it('is in the status bar only when given (several folders)', () => {
    assert.equal(new RunView('r').statusText(), '$(sync~spin) Agent · preparing');
    const view = new RunView('r', 'web');
    assert.equal(view.statusText(), '$(sync~spin) Agent · $(folder) web · preparing');
    assert.match(view.tooltip(), /^Agent run r in web: preparing/);
    assert.equal(finalStatusText(runResult({ status: 'success', steps: 2 }), undefined, false, 0, 'web'), '$(check) Agent · $(folder) web · done (2 steps)');
    assert.equal(finalStatusText(runResult({ status: 'success', steps: 2 })), '$(check) Agent · done (2 steps)');
  });

  it('binds the panel’s conversation to the folder of its first run', () => {
    let c = reduce(emptyConversation(), { type: 'runStarted', runId: 'r1', prompt: 'go', folder: WEB, folderName: 'web' });
    assert.equal(c.folder, WEB);
    const user = c.items[0];
    assert.equal(user.kind === 'user' ? user.folder : undefined, 'web');
    c = reduce(c, { type: 'runEnded', runId: 'r1', result: { status: 'success' }, cancelled: false });
    // A later run of the conversation cannot move it: its session lives in WEB.
    c = reduce(c, { type: 'runStarted', runId: 'r2', prompt: 'more', folder: API });
    assert.equal(c.folder, WEB);
    const second = c.items.find((it) => it.runId === 'r2' && it.kind === 'user');
    assert.equal(second?.kind === 'user' ? second.folder : 'x', undefined);
    c = reduce(c, { type: 'newSession' });
    assert.equal(c.folder, undefined);
    c = reduce(c, { type: 'sessionLoaded', sessionId: 's', entries: [], folder: API });
    assert.equal(c.folder, API);
  });
});
