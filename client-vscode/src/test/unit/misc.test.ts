import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toWire } from '../../diagnosticsWire';
import { addAgentCapabilities } from '../../capabilities';
import { editedUris } from '../../edits';
import { expandPathSetting } from '../../pathSetting';
import { describeStartupFailure } from '../../startupFailure';

describe('describeStartupFailure', () => {
  it('names a missing interpreter or server command, and the setting to look at', () => {
    const msg = describeStartupFailure({ command: '/nope/python', source: 'python', spawnError: { code: 'ENOENT', message: 'spawn ENOENT' }, stderrTail: [] });
    assert.match(msg, /Python interpreter not found: "\/nope\/python"\. Set "agentls\.python"/);
    const server = describeStartupFailure({ command: '/x/agentls', source: 'serverPath', spawnError: { code: 'ENOENT', message: 'spawn ENOENT' }, stderrTail: [] });
    assert.match(server, /Server command not found: "\/x\/agentls"\. Check "agentls\.serverPath"/);
    const managed = describeStartupFailure({ command: '/s/envs/k/bin/python', source: 'managed', spawnError: { code: 'EACCES', message: 'spawn EACCES' }, stderrTail: [] });
    assert.match(managed, /environment's Python "\/s\/envs\/k\/bin\/python" cannot be run .*Restart server/);
  });

  it('names an import error from stderr', () => {
    const msg = describeStartupFailure({
      command: 'python3',
      source: 'python',
      exitCode: 1,
      stderrTail: ['Traceback (most recent call last):', "ModuleNotFoundError: No module named 'pygls'"],
    });
    assert.match(msg, /cannot be imported by "python3" \(No module named 'pygls'\)\. Install agentls into that environment, or clear "agentls\.python"/);
    const direct = describeStartupFailure({ command: 'python3', source: 'python', exitCode: 1, stderrTail: ['/usr/bin/python3: No module named agentls'] });
    assert.match(direct, /cannot be imported by "python3" \(No module named agentls\)/);
  });

  it('falls back to the exit code, signal or error', () => {
    const facts = { command: 'p', source: 'python' as const, stderrTail: [] };
    assert.match(describeStartupFailure({ ...facts, exitCode: 2 }), /exited with code 2/);
    assert.match(describeStartupFailure({ ...facts, signal: 'SIGKILL' }), /killed \(SIGKILL\)/);
    assert.match(describeStartupFailure({ ...facts, error: 'disposed' }), /did not start: disposed/);
  });
});

describe('capabilities', () => {
  it('declares experimental.agentls.askUser, approveProgram, commandOutput, diagnostics, editorModels and notices, and keeps what is there', () => {
    const caps: { experimental?: unknown } = { experimental: { other: 1 } };
    addAgentCapabilities(caps);
    assert.deepEqual(caps.experimental, { other: 1, agentls: { askUser: true, approveProgram: true, commandOutput: true, diagnostics: true, editorModels: true, navigation: true, notices: true } });
  });
});

describe('agent/diagnostics', () => {
  it("sends a VS Code diagnostic in LSP's shape: severity from 1, the code's value, no empty source", () => {
    const range = { start: { line: 40, character: 8 }, end: { line: 40, character: 19 } };
    assert.deepEqual(toWire({ range, severity: 0, message: 'x is not defined', source: 'Pylance', code: { value: 'reportUndefinedVariable' } }), {
      range,
      severity: 1,
      message: 'x is not defined',
      source: 'Pylance',
      code: 'reportUndefinedVariable',
    });
    assert.deepEqual(toWire({ range, severity: 3, message: 'unused', code: 6133 }), { range, severity: 4, message: 'unused', code: 6133 });
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

describe('expandPathSetting', () => {
  it('expands the workspace folder, home and relative paths', () => {
    assert.equal(expandPathSetting('${workspaceFolder}/.venv/bin/python', '/w', '/h'), '/w/.venv/bin/python');
    assert.equal(expandPathSetting('~/py/bin/python', '/w', '/h'), '/h/py/bin/python');
    assert.equal(expandPathSetting('.venv/bin/python', '/w', '/h'), '/w/.venv/bin/python');
    assert.equal(expandPathSetting('python3.12', '/w', '/h'), 'python3.12');
  });
});
