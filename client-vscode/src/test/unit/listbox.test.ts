import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListboxModel, listboxKey, moveActive, type ListboxKey } from '../../panel/listbox';

function key(name: string, extra: Partial<ListboxKey> = {}): ListboxKey {
  return { key: name, shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, isComposing: false, ...extra };
}

/** A picker open on the word at 0 with `rows`. */
function picker(rows: string[]): ListboxModel<string> {
  const model = new ListboxModel<string>((row) => row);
  assert.equal(model.follow(0), 'opened');
  model.setRows(rows);
  return model;
}

describe('moveActive', () => {
  it('moves and wraps around both ends', () => {
    assert.equal(moveActive(0, 1, 3), 1);
    assert.equal(moveActive(2, 1, 3), 0);
    assert.equal(moveActive(0, -1, 3), 2);
    assert.equal(moveActive(0, 1, 0), 0);
  });
});

describe('listboxKey: what each key does to an open picker', () => {
  it('moves down and up with the arrows, wrapping around', () => {
    assert.deepEqual(listboxKey(key('ArrowDown'), 0, 3), { kind: 'move', active: 1 });
    assert.deepEqual(listboxKey(key('ArrowDown'), 2, 3), { kind: 'move', active: 0 });
    assert.deepEqual(listboxKey(key('ArrowUp'), 0, 3), { kind: 'move', active: 2 });
  });

  it('goes to the first row with Home and the last with End', () => {
    assert.deepEqual(listboxKey(key('Home'), 2, 3), { kind: 'move', active: 0 });
    assert.deepEqual(listboxKey(key('End'), 0, 3), { kind: 'move', active: 2 });
  });

  it('leaves Home and End with a modifier to the prompt box (selecting, going to its start or end)', () => {
    for (const modifier of ['shiftKey', 'ctrlKey', 'metaKey', 'altKey'] as const) {
      assert.equal(listboxKey(key('Home', { [modifier]: true }), 1, 3), undefined, modifier);
      assert.equal(listboxKey(key('End', { [modifier]: true }), 1, 3), undefined, modifier);
    }
  });

  it('chooses the active row with Enter or Tab, but not with Shift (a new line, leaving the box)', () => {
    assert.deepEqual(listboxKey(key('Enter'), 1, 3), { kind: 'choose', index: 1 });
    assert.deepEqual(listboxKey(key('Tab'), 2, 3), { kind: 'choose', index: 2 });
    assert.deepEqual(listboxKey(key('Enter', { ctrlKey: true }), 0, 3), { kind: 'choose', index: 0 });
    assert.equal(listboxKey(key('Enter', { shiftKey: true }), 1, 3), undefined);
    assert.equal(listboxKey(key('Tab', { shiftKey: true }), 1, 3), undefined);
  });

  it('with no rows, leaves the arrows, Home, End, Enter and Tab to the box (Enter sends), and still closes on Escape', () => {
    for (const name of ['ArrowDown', 'ArrowUp', 'Home', 'End', 'Enter', 'Tab']) {
      assert.equal(listboxKey(key(name), 0, 0), undefined, name);
    }
    assert.deepEqual(listboxKey(key('Escape'), 0, 0), { kind: 'dismiss' });
  });

  it('takes no key while an input method composes, and none it does not know', () => {
    for (const name of ['ArrowDown', 'Home', 'Enter', 'Tab', 'Escape']) {
      assert.equal(listboxKey(key(name, { isComposing: true }), 0, 3), undefined, name);
    }
    for (const name of ['a', ' ', 'ArrowLeft', 'ArrowRight', 'Backspace', 'PageDown']) {
      assert.equal(listboxKey(key(name), 0, 3), undefined, name);
    }
  });
});

describe('ListboxModel: one picker', () => {
  it('takes no key while closed', () => {
    const model = new ListboxModel<string>((row) => row);
    model.setRows(['a', 'b']);
    assert.equal(model.key(key('ArrowDown'), 0), undefined);
    assert.equal(model.active, 0);
  });

  it('applies the moves it answers', () => {
    const model = picker(['clear', 'compact', 'review']);
    assert.equal(model.activeRow, 'clear');
    assert.deepEqual(model.key(key('ArrowDown'), 0), { kind: 'move', active: 1 });
    assert.equal(model.activeRow, 'compact');
    model.key(key('End'), 0);
    assert.equal(model.activeRow, 'review');
    model.key(key('ArrowDown'), 0);
    assert.equal(model.activeRow, 'clear');
    model.key(key('ArrowUp'), 0);
    model.key(key('Home'), 0);
    assert.equal(model.activeRow, 'clear');
    assert.deepEqual(model.key(key('Tab'), 0), { kind: 'choose', index: 0 });
  });

  it('keeps the active row on its row as the rows change, else goes to the first', () => {
    const model = picker(['clear', 'compact', 'review']);
    model.key(key('ArrowDown'), 0);
    model.setRows(['compact', 'review']);
    assert.equal(model.activeRow, 'compact');
    model.key(key('End'), 0);
    model.setRows(['clear', 'compact']);
    assert.equal(model.active, 0, 'review is gone: the best match is active');
    model.setRows([]);
    assert.equal(model.activeRow, undefined);
    model.setRows(['init']);
    assert.equal(model.activeRow, 'init');
  });

  it('opens again on the first row, without the rows of its last opening', () => {
    const model = picker(['clear', 'compact']);
    model.key(key('ArrowDown'), 0);
    assert.equal(model.follow(0), 'open');
    assert.equal(model.follow(undefined), 'closed');
    assert.equal(model.open, false);
    assert.equal(model.follow(0), 'opened');
    assert.deepEqual([model.rows, model.active], [[], 0]);
  });

  it('stays closed after Escape until the caret leaves that word', () => {
    const model = new ListboxModel<string>((row) => row);
    assert.equal(model.follow(4), 'opened');
    model.setRows(['#problems']);
    assert.deepEqual(model.key(key('Escape'), 4), { kind: 'dismiss' });
    assert.equal(model.open, false);
    assert.equal(model.key(key('Enter'), 4), undefined, 'Enter is the box’s again: it sends');
    assert.equal(model.follow(4), 'closed', 'typing on in the same word');
    assert.equal(model.follow(9), 'opened', 'another word');
    model.key(key('Escape'), 9);
    assert.equal(model.follow(undefined), 'closed');
    assert.equal(model.follow(9), 'opened', 'the caret left the word, then came back to a new one there');
  });

  it('closes without forgetting its rows, and opens fresh', () => {
    const model = picker(['a', 'b']);
    model.close();
    assert.equal(model.key(key('ArrowDown'), 0), undefined);
    assert.equal(model.follow(0), 'opened');
    assert.deepEqual(model.rows, []);
  });
});
