import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addAgentCapabilities } from '../../capabilities';
import { editedUris } from '../../edits';
import { expandPythonSetting } from '../../pythonSetting';
import { describeStartupFailure } from '../../startupFailure';

describe('describeStartupFailure', () => {
  it('names a missing interpreter', () => {
    const msg = describeStartupFailure({ python: '/nope/python', spawnError: { code: 'ENOENT', message: 'spawn ENOENT' }, stderrTail: [] });
    assert.match(msg, /Python interpreter not found: "\/nope\/python"/);
  });

  it('names an import error from stderr', () => {
    const msg = describeStartupFailure({
      python: 'python3',
      exitCode: 1,
      stderrTail: ['Traceback (most recent call last):', "ModuleNotFoundError: No module named 'pygls'"],
    });
    assert.match(msg, /cannot be imported by "python3" \(No module named 'pygls'\)/);
    const direct = describeStartupFailure({ python: 'python3', exitCode: 1, stderrTail: ['/usr/bin/python3: No module named server'] });
    assert.match(direct, /cannot be imported by "python3" \(No module named server\)/);
  });

  it('falls back to the exit code, signal or error', () => {
    assert.match(describeStartupFailure({ python: 'p', exitCode: 2, stderrTail: [] }), /exited with code 2/);
    assert.match(describeStartupFailure({ python: 'p', signal: 'SIGKILL', stderrTail: [] }), /killed \(SIGKILL\)/);
    assert.match(describeStartupFailure({ python: 'p', error: 'disposed', stderrTail: [] }), /did not start: disposed/);
  });
});

describe('capabilities', () => {
  it('declares experimental.agentls.askUser and keeps what is there', () => {
    const caps: { experimental?: unknown } = { experimental: { other: 1 } };
    addAgentCapabilities(caps);
    assert.deepEqual(caps.experimental, { other: 1, agentls: { askUser: true } });
  });
});

describe('editedUris', () => {
  it('collects text edits, creations, renames and changes', () => {
    const uris = editedUris({
      documentChanges: [
        { textDocument: { uri: 'file:///w/a.py', version: 1 }, edits: [] },
        { kind: 'create', uri: 'file:///w/b.py' },
        { kind: 'rename', oldUri: 'file:///w/c.py', newUri: 'file:///w/d.py' },
        { kind: 'delete', uri: 'file:///w/e.py' },
        { textDocument: { uri: 'file:///w/a.py', version: 2 }, edits: [] },
      ],
      changes: { 'file:///w/f.py': [] },
    });
    assert.deepEqual(uris, ['file:///w/a.py', 'file:///w/b.py', 'file:///w/d.py', 'file:///w/f.py']);
  });
});

describe('expandPythonSetting', () => {
  it('expands the workspace folder, home and relative paths', () => {
    assert.equal(expandPythonSetting('${workspaceFolder}/.venv/bin/python', '/w', '/h'), '/w/.venv/bin/python');
    assert.equal(expandPythonSetting('~/py/bin/python', '/w', '/h'), '/h/py/bin/python');
    assert.equal(expandPythonSetting('.venv/bin/python', '/w', '/h'), '/w/.venv/bin/python');
    assert.equal(expandPythonSetting('python3.12', '/w', '/h'), 'python3.12');
  });
});
