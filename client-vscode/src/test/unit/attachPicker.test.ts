import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_IMAGE_BYTES,
  addAttachment,
  attachOptions,
  attachQuery,
  chipLabel,
  imageAttachment,
  removeAttachment,
  removeQuery,
} from '../../panel/attachPicker';
import type { AttachCandidate, Attachment } from '../../protocol';

const CANDIDATES: AttachCandidate[] = [
  { kind: 'file', path: 'src/greeting.py', detail: '' },
  { kind: 'symbol', path: 'src/app.py', name: 'greet', line: 3, symbolKind: 'function', detail: 'def greet(name):' },
];

describe('attachQuery: when the @ picker is open', () => {
  it('opens on an @ that starts a word and follows it up to the caret', () => {
    assert.deepEqual(attachQuery('@', 1), { query: '', start: 0 });
    assert.deepEqual(attachQuery('explain @gre', 12), { query: 'gre', start: 8 });
    assert.deepEqual(attachQuery('a\n@src/app', 10), { query: 'src/app', start: 2 });
    assert.deepEqual(attachQuery('see @app.py and more', 11), { query: 'app.py', start: 4 });
  });

  it('stays closed for an e-mail address, after a space, and with no @', () => {
    assert.equal(attachQuery('mail me@home', 12), undefined);
    assert.equal(attachQuery('@app ', 5), undefined);
    assert.equal(attachQuery('plain text', 10), undefined);
    assert.equal(attachQuery('@@', 2), undefined);
  });
});

describe('attachOptions: the rows', () => {
  it('puts #problems and #changes first, then the server rows in its order', () => {
    const rows = attachOptions('', CANDIDATES);
    assert.deepEqual(rows.map((r) => r.label), ['#problems', '#changes', 'greeting.py', 'greet']);
    assert.deepEqual(rows[2].attachment, { kind: 'file', path: 'src/greeting.py' });
    assert.equal(rows[2].detail, 'src/greeting.py');
    assert.deepEqual(rows[3].attachment, { kind: 'symbol', name: 'greet' });
    assert.equal(rows[3].detail, 'function · src/app.py:3');
  });

  it('names a file at the root a file, and a file in a folder by its path', () => {
    const [root] = attachOptions('x', [{ kind: 'file', path: 'setup.py', detail: '' }]);
    assert.deepEqual([root.label, root.detail], ['setup.py', 'file']);
  });

  it('keeps a keyword row only while it matches, and # asks for the keywords alone', () => {
    assert.deepEqual(attachOptions('prob', CANDIDATES).map((r) => r.label), ['#problems', 'greeting.py', 'greet']);
    assert.deepEqual(attachOptions('#ch', CANDIDATES).map((r) => r.label), ['#changes']);
    assert.deepEqual(attachOptions('gre', []).map((r) => r.label), []);
  });

  it('gives every row its own key', () => {
    const keys = attachOptions('', CANDIDATES).map((r) => r.key);
    assert.equal(new Set(keys).size, keys.length);
  });
});

describe('the prompt and the chips', () => {
  it('takes the typed @query out of the prompt when a row is chosen', () => {
    assert.deepEqual(removeQuery('explain @gre please', 8, 12), { text: 'explain  please', caret: 8 });
    assert.deepEqual(removeQuery('@gre', 0, 2), { text: '', caret: 0 });
  });

  it('names each kind of attachment', () => {
    const labels = ([
      { kind: 'file', path: 'src/app.py' },
      { kind: 'file', path: 'src/app.py', startLine: 3, endLine: 9 },
      { kind: 'symbol', name: 'greet' },
      { kind: 'problems' },
      { kind: 'changes' },
      { kind: 'image', path: 'shot.png', data: 'AA==', mimeType: 'image/png' },
    ] as Attachment[]).map(chipLabel);
    assert.deepEqual(labels, ['src/app.py', 'src/app.py:3-9', '@greet', '#problems', '#changes', 'shot.png']);
  });

  it('adds an attachment once and removes the one asked', () => {
    let list = addAttachment([], { kind: 'problems' });
    list = addAttachment(list, { kind: 'file', path: 'a.py' });
    list = addAttachment(list, { kind: 'problems' });
    assert.equal(list.length, 2);
    assert.deepEqual(removeAttachment(list, 0), [{ kind: 'file', path: 'a.py' }]);
  });
});

describe('imageAttachment: pasted and dropped images', () => {
  it('takes the types the server takes', () => {
    assert.deepEqual(imageAttachment('shot.png', 'image/png', 10, 'AAAA'), { kind: 'image', path: 'shot.png', data: 'AAAA', mimeType: 'image/png' });
    assert.deepEqual(imageAttachment('', 'image/webp', 10, 'AAAA'), { kind: 'image', path: 'pasted image', data: 'AAAA', mimeType: 'image/webp' });
  });

  it('refuses another type or a large image, naming it', () => {
    assert.deepEqual(imageAttachment('a.bmp', 'image/bmp', 10, ''), { error: 'a.bmp: images of type image/bmp cannot be attached; use PNG, JPEG, GIF or WebP' });
    const big = imageAttachment('big.png', 'image/png', MAX_IMAGE_BYTES + 1, '');
    assert.ok('error' in big && big.error.startsWith('big.png: the image is'));
  });
});
