import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPrompt, describeLines, fenceFor, workspaceRelative } from '../../prompt';

describe('workspaceRelative: the activeFile of a run', () => {
  it('is the file relative to the workspace folder, with slashes', () => {
    assert.equal(workspaceRelative('/ws', '/ws/web/app.ts', '/'), 'web/app.ts');
    assert.equal(workspaceRelative('/ws/', '/ws/AGENTS.md', '/'), 'AGENTS.md');
    assert.equal(workspaceRelative('C:\\ws', 'C:\\ws\\web\\app.ts', '\\'), 'web/app.ts');
  });

  it('is nothing for a file outside the folder or the folder itself', () => {
    assert.equal(workspaceRelative('/ws', '/other/app.ts', '/'), undefined);
    assert.equal(workspaceRelative('/ws', '/ws2/app.ts', '/'), undefined);
    assert.equal(workspaceRelative('/ws', '/ws', '/'), undefined);
    assert.equal(workspaceRelative('C:\\ws', 'D:\\ws\\app.ts', '\\'), undefined);
  });
});

describe('buildPrompt', () => {
  it('is the prompt alone without a selection', () => {
    assert.equal(buildPrompt('  fix the bug \n'), 'fix the bug');
    assert.equal(buildPrompt('fix', { path: 'a.py', startLine: 1, endLine: 1, text: '   \n' }), 'fix');
  });

  it('adds the selection with its path and lines', () => {
    const out = buildPrompt('add type hints', {
      path: 'src/app.py',
      startLine: 3,
      endLine: 5,
      text: 'def f(x):\n    return x',
      languageId: 'python',
    });
    assert.equal(
      out,
      'add type hints\n\nContext: the selected lines 3-5 of src/app.py:\n```python\ndef f(x):\n    return x\n```\n',
    );
  });

  it('says "line" for one line and uses a longer fence around backticks', () => {
    const out = buildPrompt('explain', { path: 'README.md', startLine: 2, endLine: 2, text: 'use ```code```', languageId: 'markdown' });
    assert.match(out, /the selected line 2 of README\.md:\n````markdown\nuse ```code```\n````\n$/);
  });

  it('omits the plaintext language', () => {
    assert.match(buildPrompt('x', { path: 'a.txt', startLine: 1, endLine: 2, text: 'a\nb\n', languageId: 'plaintext' }), /\n```\na\nb\n```\n$/);
  });
});

describe('helpers', () => {
  it('fenceFor and describeLines', () => {
    assert.equal(fenceFor('plain'), '```');
    assert.equal(fenceFor('a ````` b'), '``````');
    assert.equal(describeLines(4, 4), 'line 4');
    assert.equal(describeLines(4, 9), 'lines 4-9');
  });
});
