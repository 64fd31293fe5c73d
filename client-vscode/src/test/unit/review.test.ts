import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { applyChange, diffLines, FileReview, offsetAt, splitLines, type Change } from '../../review/model';
import { Deliveries, summarize } from '../../review/delivery';
import { autoSaveRule, autoSaveWords, decisionParams, MAX_AUTOSAVE_WAIT_MS, readReviewSettings, reviewable, runOfHunk } from '../../review/protocol';

const OLD = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');

/** The change replacing whole lines [from, to) of `text` (0-based) by `lines`. */
function lines(text: string, from: number, to: number, replacement: string): Change {
  const start = offsetAt(text, from, 0);
  const end = to >= splitLines(text).length ? text.length : offsetAt(text, to, 0);
  return { offset: start, length: end - start, text: replacement };
}

/** A review after the agent replaced line 2 and line 8 (two hunks, ids a and b). */
function twoHunks(): FileReview {
  const review = new FileReview(OLD);
  review.applyAgent(lines(review.text, 1, 2, 'line two\n'), 'a');
  review.applyAgent(lines(review.text, 7, 8, 'line eight\n'), 'b');
  return review;
}

describe('FileReview', () => {
  it('turns agent edits into minimal hunks over a baseline', () => {
    const review = twoHunks();
    assert.equal(review.pending, 2);
    assert.equal(review.baseline(), OLD);
    assert.deepEqual(
      review.hunks.map((h) => [h.ids, review.text.slice(h.start, h.end), h.oldText]),
      [
        [['a'], 'line two\n', 'line 2\n'],
        [['b'], 'line eight\n', 'line 8\n'],
      ],
    );
  });

  it('keeps one hunk and undoes another', () => {
    const review = twoHunks();
    const [first, second] = review.hunks;
    const kept = review.keep(first.key);
    assert.deepEqual(kept && [kept.ids, kept.outcome, kept.line], [['a'], 'kept', 1]);
    assert.equal(review.text, OLD.replace('line 2\n', 'line two\n').replace('line 8\n', 'line eight\n'));
    const undone = review.undo(second.key);
    assert.ok(undone);
    assert.equal(undone.decided.outcome, 'undone');
    assert.equal(review.text, OLD.replace('line 2\n', 'line two\n'));
    assert.equal(review.pending, 0);
    assert.equal(review.keep(first.key), undefined, 'a decided hunk cannot be decided again');
  });

  it('takes typing outside a hunk as the user text, never the agent', () => {
    const review = twoHunks();
    review.applyUser({ offset: offsetAt(review.text, 4, 0), length: 0, text: 'mine\n' });
    assert.equal(review.pending, 2);
    assert.equal(review.baseline(), OLD.replace('line 5\n', 'mine\nline 5\n'));
    assert.ok(review.hunks.every((h) => !h.changedByUser));
    review.undo(review.hunks[1].key);
    assert.equal(review.text, OLD.replace('line 2\n', 'line two\n').replace('line 5\n', 'mine\nline 5\n'));
  });

  it('marks a hunk typed in as changed by the user; keep reports its text, undo restores the baseline', () => {
    const review = twoHunks();
    const at = review.text.indexOf('eight') + 'eight'.length;
    review.applyUser({ offset: at, length: 0, text: '!' });
    const hunk = review.hunks[1];
    assert.equal(hunk.changedByUser, true);
    assert.deepEqual(review.keep(hunk.key), { key: hunk.key, ids: ['b'], outcome: 'changedByUser', text: 'line eight!\n', line: 7 });
    const other = twoHunks();
    other.applyUser({ offset: other.text.indexOf('two'), length: 3, text: '2!' });
    other.undo(other.hunks[0].key);
    assert.equal(other.baseline(), OLD);
    assert.equal(other.text, OLD.replace('line 8\n', 'line eight\n'));
  });

  it('reports a hunk whose old text the user typed back as undone', () => {
    const review = twoHunks();
    const at = review.text.indexOf('two');
    const decided = review.applyUser({ offset: at, length: 3, text: '2' });
    assert.deepEqual(decided.map((d) => [d.ids, d.outcome]), [[['a'], 'undone']]);
    assert.equal(review.pending, 1);
  });

  it('merges a second agent edit into the hunk it touches, carrying both ids', () => {
    const review = twoHunks();
    review.applyAgent(lines(review.text, 1, 3, 'line TWO\nline THREE\n'), 'c');
    assert.equal(review.pending, 2);
    assert.deepEqual(review.hunks[0].ids, ['a', 'c']);
    assert.equal(review.hunks[0].oldText, 'line 2\nline 3\n');
    assert.equal(review.baseline(), OLD);
  });

  it('shows pure insertions and removals as such', () => {
    const review = new FileReview(OLD);
    review.applyAgent({ offset: offsetAt(OLD, 3, 0), length: 0, text: 'new\n' }, 'ins');
    review.applyAgent(lines(review.text, 7, 9, ''), 'del');
    const [ins, del] = review.hunks;
    assert.deepEqual([ins.oldText, review.text.slice(ins.start, ins.end)], ['', 'new\n']);
    assert.deepEqual([del.oldText, del.start === del.end], ['line 7\nline 8\n', true]);
    assert.equal(review.hunkAt(del.start)?.key, del.key);
    review.undo(del.key);
    review.undo(ins.key);
    assert.equal(review.text, OLD);
  });

  it('brings an undone hunk back pending after the editor undoes the undo', () => {
    const review = twoHunks();
    const before = review.text;
    const second = review.hunks[1];
    const undone = review.undo(second.key);
    assert.ok(undone);
    // Ctrl+Z: the editor puts the agent's text back; we see it as a plain change first.
    const inverse: Change = { offset: undone.change.offset, length: undone.change.text.length, text: before.slice(second.start, second.end) };
    review.applyUser(inverse);
    assert.equal(review.text, before);
    assert.deepEqual(review.restoreAfterUndo().map((h) => h.key), [second.key]);
    assert.equal(review.pending, 2);
    assert.equal(review.baseline(), OLD);
  });

  it('re-derives the hunks from a text it did not see coming', () => {
    const review = twoHunks();
    const decided = review.resync(OLD.replace('line 8\n', 'line eight\n'));
    assert.deepEqual(decided.map((d) => [d.ids, d.outcome]), [[['a'], 'undone']]);
    assert.deepEqual(review.hunks.map((h) => h.ids), [['b']]);
    assert.equal(review.baseline(), OLD);
  });

  it('finds minimal line diffs', () => {
    assert.deepEqual(diffLines(['a', 'b', 'c'], ['a', 'x', 'c']), [[1, 2, 1, 2]]);
    assert.deepEqual(diffLines([], ['a']), [[0, 0, 0, 1]]);
    assert.deepEqual(diffLines(['a'], []), [[0, 1, 0, 0]]);
    assert.deepEqual(diffLines(['a', 'b'], ['a', 'b']), []);
  });
});

// -- properties ---------------------------------------------------------------------------

const lineText = fc.constantFrom('a\n', 'b\n', 'c\n', 'dd\n', '\n', 'x y\n', 'z\r\n');
const doc = fc.array(lineText, { minLength: 1, maxLength: 12 }).map((ls) => ls.join(''));

/** A change at any character positions of `text`, with `insert` as the new text. */
function changeIn(text: string, a: number, b: number, insert: string): Change {
  const from = Math.min(a, b) % (text.length + 1);
  const to = Math.max(a, b) % (text.length + 1);
  const start = Math.min(from, to);
  return { offset: start, length: Math.max(from, to) - start, text: insert };
}

const edit = fc.tuple(fc.nat(200), fc.nat(200), fc.array(fc.constantFrom('q', '\n', 'r\n', 'a\n', ''), { maxLength: 3 }).map((p) => p.join('')));

function wellFormed(review: FileReview): void {
  let previous = -1;
  for (const h of review.hunks) {
    assert.ok(h.start >= previous, 'hunks are sorted and do not overlap');
    assert.ok(h.start <= h.end && h.end <= review.text.length);
    assert.ok(h.start === 0 || /[\r\n]/.test(review.text[h.start - 1]), 'hunks start at a line start');
    assert.notEqual(review.text.slice(h.start, h.end), h.oldText, 'a hunk differs from its baseline');
    previous = h.end;
  }
}

describe('FileReview properties', () => {
  it('undoing every agent edit gives back the original text; keeping them all changes nothing', () => {
    fc.assert(
      fc.property(doc, fc.array(edit, { minLength: 1, maxLength: 6 }), (text, edits) => {
        const review = new FileReview(text);
        edits.forEach(([a, b, insert], i) => review.applyAgent(changeIn(review.text, a, b, insert), `id${i}`));
        wellFormed(review);
        assert.equal(review.baseline(), text);
        const after = review.text;
        const keeper = new FileReview(text);
        edits.forEach(([a, b, insert], i) => keeper.applyAgent(changeIn(keeper.text, a, b, insert), `id${i}`));
        for (const h of [...keeper.hunks]) {
          keeper.keep(h.key);
        }
        assert.equal(keeper.text, after);
        for (const h of [...review.hunks].reverse()) {
          review.undo(h.key);
        }
        assert.equal(review.text, text);
      }),
    );
  });

  it('keeps some hunks and undoes others: exactly the kept ones remain', () => {
    fc.assert(
      fc.property(doc, fc.array(edit, { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), (text, edits, choices) => {
        const review = new FileReview(text);
        edits.forEach(([a, b, insert], i) => review.applyAgent(changeIn(review.text, a, b, insert), `id${i}`));
        let expected = '';
        let pos = 0;
        review.hunks.forEach((h, i) => {
          expected += review.text.slice(pos, h.start) + (choices[i % choices.length] ? review.text.slice(h.start, h.end) : h.oldText);
          pos = h.end;
        });
        expected += review.text.slice(pos);
        review.hunks.map((h, i) => [h.key, choices[i % choices.length]] as const).forEach(([key, keep]) => (keep ? review.keep(key) : review.undo(key)));
        assert.equal(review.text, expected);
        assert.equal(review.pending, 0);
      }),
    );
  });

  it('the user typing anywhere keeps the hunks well formed, and typing outside them lands in the baseline', () => {
    fc.assert(
      fc.property(doc, fc.array(edit, { minLength: 1, maxLength: 4 }), fc.array(edit, { minLength: 1, maxLength: 4 }), (text, agentEdits, userEdits) => {
        const review = new FileReview(text);
        agentEdits.forEach(([a, b, insert], i) => review.applyAgent(changeIn(review.text, a, b, insert), `id${i}`));
        for (const [a, b, insert] of userEdits) {
          const change = changeIn(review.text, a, b, insert);
          const before = review.baseline();
          const hunksBefore = review.hunks.map((h) => ({ ...h }));
          const outside = !review.hunks.some((h) => h.start <= change.offset + change.length + 1 && h.end + 1 >= change.offset);
          // Where the change sits in the baseline: hunks before it shift it.
          const shift = hunksBefore.filter((h) => h.end <= change.offset).reduce((s, h) => s + h.oldText.length - (h.end - h.start), 0);
          review.applyUser(change);
          wellFormed(review);
          if (outside) {
            assert.equal(review.baseline(), applyChange(before, { ...change, offset: change.offset + shift }));
            assert.equal(review.pending, hunksBefore.length);
          }
        }
        // Whatever happened, undoing everything leaves no agent text behind.
        for (const h of [...review.hunks].reverse()) {
          review.undo(h.key);
        }
        assert.equal(review.pending, 0);
        assert.equal(review.text, review.baseline());
      }),
    );
  });
});

describe('review protocol', () => {
  const annotated = (needsConfirmation: boolean, extra: object[] = []) => ({
    edit: {
      changeAnnotations: { 'r-1:edit:a.py:1': { label: 'agent: edit a.py', needsConfirmation } },
      documentChanges: [
        ...extra,
        {
          textDocument: { uri: 'file:///w/a.py', version: 3 },
          edits: [{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: 'x\n', annotationId: 'r-1:edit:a.py:1' }],
        },
      ],
    },
  });

  it('takes over only edits that need confirmation and hold text edits or creations', () => {
    assert.equal(reviewable(annotated(false) as never), undefined);
    assert.equal(reviewable(annotated(true) as never)?.length, 1);
    const created = reviewable(annotated(true, [{ kind: 'create', uri: 'file:///w/b.py' }]) as never);
    assert.deepEqual(created?.map((p) => p.create ?? 'edit'), ['file:///w/b.py', 'edit']);
    assert.equal(reviewable(annotated(true, [{ kind: 'delete', uri: 'file:///w/c.py' }]) as never), undefined, 'deletions go to the preview');
  });

  it('names every server hunk a decided hunk carries', () => {
    const params = decisionParams('file:///w/a.py', 7, [
      { key: 1, ids: ['h1', 'h2'], outcome: 'kept', line: 0 },
      { key: 2, ids: ['h3'], outcome: 'changedByUser', text: 'mine\n', line: 4 },
    ]);
    assert.deepEqual(params, {
      uri: 'file:///w/a.py',
      version: 7,
      hunks: [
        { id: 'h1', outcome: 'kept', line: 0 },
        { id: 'h2', outcome: 'kept', line: 0 },
        { id: 'h3', outcome: 'changedByUser', text: 'mine\n', line: 4 },
      ],
    });
  });

  it('reads the settings with safe defaults', () => {
    assert.deepEqual(readReviewSettings(() => undefined), { mode: 'inline', waitForDecision: false });
    assert.deepEqual(readReviewSettings((k) => ({ mode: 'refactorPreview', waitForDecision: true })[k]), { mode: 'refactorPreview', waitForDecision: true });
    assert.deepEqual(readReviewSettings((k) => ({ mode: 'bogus', waitForDecision: 'yes' })[k]), { mode: 'inline', waitForDecision: false });
  });
});

describe('FileReview: the names of the changes', () => {
  it('numbers the hunks of one edit from the top, though they are applied from the bottom', () => {
    const review = new FileReview(OLD);
    const first = review.nextHunkKey;
    review.applyAgent(lines(OLD, 7, 8, 'line eight\n'), 'b');
    review.applyAgent(lines(OLD, 1, 2, 'line two\n'), 'a');
    review.numberInOrder(first);
    assert.deepEqual(review.hunks.map((h) => [h.key, h.ids]), [
      [1, ['a']],
      [2, ['b']],
    ]);
    // A later edit's hunks come after, whatever their place: a name never changes.
    const next = review.nextHunkKey;
    review.applyAgent(lines(review.text, 4, 5, 'line five\n'), 'c');
    review.numberInOrder(next);
    assert.deepEqual(review.hunks.map((h) => h.key), [1, 3, 2]);
  });
});

describe('auto-save rules', () => {
  it('waits for a short afterDelay save and for no other mode', () => {
    assert.deepEqual(autoSaveRule('afterDelay', 1000), { mode: 'afterDelay', waitMs: 3000 });
    assert.deepEqual(autoSaveRule('afterDelay', MAX_AUTOSAVE_WAIT_MS + 1), { mode: 'afterDelay', waitMs: 0 });
    assert.deepEqual(autoSaveRule('onFocusChange', 1000), { mode: 'onFocusChange', waitMs: 0 });
    assert.deepEqual(autoSaveRule('onWindowChange', 1000), { mode: 'onWindowChange', waitMs: 0 });
    assert.deepEqual(autoSaveRule('off', 1000), { mode: 'off', waitMs: 0 });
    assert.deepEqual(autoSaveRule('somethingNew', 1000), { mode: 'off', waitMs: 0 }, 'an unknown mode is not promised to save');
    assert.deepEqual(autoSaveRule('afterDelay', undefined), { mode: 'afterDelay', waitMs: 3000 }, "VS Code's default delay");
  });

  it('tells the user what auto-save does with the pending changes', () => {
    assert.equal(autoSaveWords('afterDelay', true), 'already saved by auto-save');
    assert.equal(autoSaveWords('afterDelay', false), 'auto-save will save them shortly');
    assert.equal(autoSaveWords('onFocusChange', false), 'auto-save saves them when focus leaves the editor');
    assert.equal(autoSaveWords('off', false), 'not saved until you decide');
  });
});

describe('delivery of the decisions', () => {
  it('names the run of a hunk id', () => {
    assert.equal(runOfHunk('review-vscode-abc-1-3:edit:src/app.py:2'), 'vscode-abc-1');
    assert.equal(runOfHunk('agentls-1:edit:a.py:1'), undefined);
  });

  it('summarizes decisions in the user\'s words', () => {
    assert.equal(
      summarize([
        { file: 'calc.py', outcome: 'kept' },
        { file: 'calc.py', outcome: 'undone' },
        { file: 'util.py', outcome: 'changedByUser' },
        { file: 'calc.py', outcome: 'kept' },
      ]),
      'calc.py: 2 kept, 1 undone; util.py: 1 changed by you',
    );
  });

  it('follows decisions until they are told, and says which were lost', () => {
    const book = new Deliveries();
    book.sent([
      { file: 'calc.py', key: 1, outcome: 'kept', ids: ['a'] },
      { file: 'calc.py', key: 2, outcome: 'undone', ids: ['b', 'c'] },
    ]);
    assert.deepEqual(book.delivered({ hunks: ['a', 'b', 'c'], state: 'waiting', sessionId: 's1', otherSession: false }), {
      state: 'waiting',
      summary: 'calc.py: 1 kept, 1 undone',
      runId: undefined,
      sessionId: 's1',
    });
    assert.equal(book.waiting().length, 2);
    const told = book.delivered({ hunks: ['a'], state: 'told', runId: 'r2', sessionId: 's1', note: 'The user reviewed …', otherSession: false });
    assert.deepEqual(told, { state: 'told', summary: 'calc.py: 1 kept', runId: 'r2', sessionId: 's1', note: 'The user reviewed …', otherSession: false });
    // The server restarts with change 2 still waiting: the user hears it is lost.
    assert.deepEqual(book.serverGone(), { state: 'lost', summary: 'calc.py: 1 undone', why: 'the agent server stopped before its next step' });
    assert.equal(book.serverGone(), undefined);
  });

  it('drops a decision taken back, and reports hunks the server never knew', () => {
    const book = new Deliveries();
    book.sent([{ file: 'a.py', key: 1, outcome: 'undone', ids: ['x'] }]);
    book.sent([{ file: 'a.py', key: 1, outcome: 'pending', ids: ['x'] }]);
    assert.equal(book.delivered({ hunks: ['x'], state: 'told', otherSession: false }), undefined);
    book.sent([{ file: 'a.py', key: 2, outcome: 'kept', ids: ['y'] }]);
    assert.deepEqual(book.delivered({ hunks: ['y'], state: 'unknown', otherSession: false }), {
      state: 'lost',
      summary: 'a.py: 1 kept',
      why: 'the agent server was restarted since it made those changes',
    });
    assert.equal(book.delivered({ hunks: ['never-sent'], state: 'waiting', otherSession: false }), undefined);
  });
});
