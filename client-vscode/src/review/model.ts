/**
 * The review of one file: what the agent changed, hunk by hunk, against a baseline that is
 * never shown as the agent's. Pure (no vscode import), unit-tested.
 *
 * The buffer always holds the live text (`text`). The baseline is that text with every
 * pending hunk's region put back to its `oldText`: it starts as the buffer before the agent's
 * first edit (the user's unsaved text included), and it takes every change the user makes
 * outside a hunk, so the user's own typing is never shown as an agent change. A change that
 * touches a hunk (a line of it, or both sides of a removal) merges into it: typed by the user,
 * the hunk becomes "changed by you"; made by the agent, it gathers the new edit's id. Hunks
 * are whole lines, kept minimal (lines equal on both sides are trimmed off) and never
 * overlap. Offsets are string indexes (UTF-16 code units, as VS Code and LSP count them).
 */

import type { ReviewOutcome } from '../protocol';

/** What the user decided about a hunk (the `outcome` of `agent/reviewDecision`). */
export type Outcome = ReviewOutcome;

export interface Hunk {
  /** Local, unique within the review: what CodeLenses and commands name ("change 2").
   * Set once, in document order among the hunks of one agent edit (`numberInOrder`). */
  key: number;
  /** The server's ids of the agent edits it carries. */
  ids: string[];
  /** Its region in `text`: from a line start to a line start (or the end of the text). */
  start: number;
  end: number;
  /** The baseline's text for the region. */
  oldText: string;
  changedByUser: boolean;
}

/** A replacement of `length` characters at `offset` by `text` (a TextDocument change). */
export interface Change {
  offset: number;
  length: number;
  text: string;
}

/** A hunk the user (or the review) settled: what to report to the server. */
export interface Decided {
  key: number;
  ids: string[];
  outcome: Outcome;
  /** For changedByUser: the region's text now. */
  text?: string;
  /** 0-based first line of the region now. */
  line: number;
}

const LINE = /[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g;

/** Lines with their terminators; a last line without one is kept. */
export function splitLines(text: string): string[] {
  return text.match(LINE) ?? [];
}

function isBreak(char: string | undefined): boolean {
  return char === '\n' || char === '\r';
}

export function lineStartOf(text: string, offset: number): number {
  let at = offset;
  while (at > 0 && !isBreak(text[at - 1])) {
    at--;
  }
  return at;
}

/** The start of the next line (after this line's terminator), or the end of the text. */
export function lineEndOf(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && !isBreak(text[at])) {
    at++;
  }
  if (text[at] === '\r' && text[at + 1] === '\n') {
    return at + 2;
  }
  return at < text.length ? at + 1 : at;
}

export function isLineStart(text: string, offset: number): boolean {
  return offset === 0 || isBreak(text[offset - 1]);
}

/** 0-based line of `offset`. */
export function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) {
      line++;
    }
  }
  return line;
}

/** Offset of an LSP/VS Code position (UTF-16 character), clamped to the line and the text. */
export function offsetAt(text: string, line: number, character: number): number {
  let start = 0;
  for (let l = 0; l < line; l++) {
    const next = lineEndOf(text, start);
    if (next === start) {
      return text.length;
    }
    start = next;
  }
  let end = start;
  while (end < text.length && !isBreak(text[end])) {
    end++;
  }
  return Math.min(start + character, end);
}

export function applyChange(text: string, change: Change): string {
  return text.slice(0, change.offset) + change.text + text.slice(change.offset + change.length);
}

/** Minimal line hunks turning `a` into `b` (Myers' diff on lines): [aStart, aEnd, bStart, bEnd]
 * in line numbers. */
export function diffLines(a: string[], b: string[]): Array<[number, number, number, number]> {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Array<Map<number, number>> = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v.get(k - 1) ?? 0) < (v.get(k + 1) ?? 0)) ? (v.get(k + 1) ?? 0) : (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) {
        break outer;
      }
    }
  }
  // Walk back to collect the matched line pairs.
  const matches: Array<[number, number]> = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const prev = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && (prev.get(k - 1) ?? 0) < (prev.get(k + 1) ?? 0)) ? k + 1 : k - 1;
    const prevX = prev.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      matches.push([x - 1, y - 1]);
      x--;
      y--;
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    matches.push([x - 1, y - 1]);
    x--;
    y--;
  }
  matches.reverse();
  const hunks: Array<[number, number, number, number]> = [];
  let ai = 0;
  let bi = 0;
  for (const [ma, mb] of [...matches, [n, m] as [number, number]]) {
    if (ma > ai || mb > bi) {
      hunks.push([ai, ma, bi, mb]);
    }
    ai = ma + 1;
    bi = mb + 1;
  }
  return hunks;
}

function sum(lines: string[]): number {
  return lines.reduce((total, line) => total + line.length, 0);
}

interface UndoMark {
  textBefore: string;
  hunksBefore: Hunk[];
  textAfter: string;
}

export class FileReview {
  hunks: Hunk[] = [];
  private nextKey = 1;
  private lastUndo: UndoMark | undefined;

  /** `wasClean`: the file had no unsaved changes before the agent's first edit. */
  constructor(
    public text: string,
    public readonly wasClean = true,
  ) {}

  get pending(): number {
    return this.hunks.length;
  }

  hunk(key: number): Hunk | undefined {
    return this.hunks.find((h) => h.key === key);
  }

  /** The text with every pending hunk undone. */
  baseline(): string {
    let out = '';
    let pos = 0;
    for (const h of this.hunks) {
      out += this.text.slice(pos, h.start) + h.oldText;
      pos = h.end;
    }
    return out + this.text.slice(pos);
  }

  /** The hunk whose region holds `offset` (or whose removal marker sits on its line). */
  hunkAt(offset: number): Hunk | undefined {
    const line = lineStartOf(this.text, offset);
    return this.hunks.find((h) => (h.start < h.end ? line >= h.start && line < h.end : line === h.start));
  }

  /** The agent's change, carrying the id of the hunk it belongs to on the server. */
  applyAgent(change: Change, id: string): Decided[] {
    this.lastUndo = undefined;
    return this.apply(change, id);
  }

  /** The key the next new hunk gets. */
  get nextHunkKey(): number {
    return this.nextKey;
  }

  /** Give the hunks made since the key `from` was next their keys in document order. The
   * edits of one agent edit are applied from the last to the first (their ranges refer to
   * the text before it), and "change 1" must still be the topmost: it is the name the user
   * sees, and the server's hunk 1 of that edit. */
  numberInOrder(from: number): void {
    const fresh = this.hunks.filter((h) => h.key >= from).sort((a, b) => a.start - b.start);
    fresh.forEach((h, i) => {
      h.key = from + i;
    });
    this.nextKey = from + fresh.length;
  }

  /** A change the user (or anything but the agent) made in the buffer. */
  applyUser(change: Change): Decided[] {
    return this.apply(change, undefined);
  }

  private apply(change: Change, agentId: string | undefined): Decided[] {
    const text = this.text;
    const end = change.offset + change.length;
    const cs = lineStartOf(text, change.offset);
    let ce = change.length > 0 && isLineStart(text, end) ? end : lineEndOf(text, end);
    const delta = change.text.length - change.length;
    const next = applyChange(text, change);
    // The region must end at a line start of the new text too (a removed line break joins
    // the next line to the changed one).
    while (ce < text.length && !isLineStart(next, ce + delta)) {
      ce = lineEndOf(text, ce);
    }
    // A removal marker is touched when the change spans it, or when the change ends at it
    // without a line break (at the end of the text: the marker cannot stay on a line start).
    const openEnd = !isLineStart(next, ce + delta);
    const touched = this.hunks.filter((h) =>
      h.start < h.end
        ? cs < h.end && ce > h.start
        : (cs < h.start && ce > h.start) || (ce === h.start && (cs === ce || openEnd)),
    );
    this.text = next;
    const after = new Set<Hunk>();
    if (touched.length === 0) {
      for (const h of this.hunks) {
        if (h.start >= ce) {
          h.start += delta;
          h.end += delta;
          after.add(h);
        }
      }
      if (agentId === undefined) {
        return []; // the user's own text: the baseline takes it
      }
      const hunk: Hunk = { key: this.nextKey++, ids: [agentId], start: cs, end: ce + delta, oldText: text.slice(cs, ce), changedByUser: false };
      return this.settle(this.insert(hunk, after), true);
    }
    const from = Math.min(cs, ...touched.map((h) => h.start));
    const to = Math.max(ce, ...touched.map((h) => h.end));
    let oldText = '';
    let pos = from;
    for (const h of touched) {
      oldText += text.slice(pos, h.start) + h.oldText;
      pos = h.end;
    }
    oldText += text.slice(pos, to);
    const ids = [...new Set([...touched.flatMap((h) => h.ids), ...(agentId === undefined ? [] : [agentId])])];
    const merged: Hunk = {
      key: touched[0].key,
      ids,
      start: from,
      end: to + delta,
      oldText,
      changedByUser: agentId === undefined || touched.some((h) => h.changedByUser),
    };
    this.hunks = this.hunks.filter((h) => !touched.includes(h));
    for (const h of this.hunks) {
      if (h.start >= to) {
        h.start += delta;
        h.end += delta;
        after.add(h);
      }
    }
    return this.settle(this.insert(merged, after), agentId !== undefined);
  }

  /** Add `hunk`, merged with any hunk it borders (one marker per place); returns the result. */
  private insert(hunk: Hunk, after: Set<Hunk>): Hunk {
    let merged = hunk;
    for (const other of [...this.hunks]) {
      // Untouched hunks were wholly before the change or wholly after it (`after`).
      const [first, second] = after.has(other) ? [merged, other] : [other, merged];
      if (first.end !== second.start) {
        continue;
      }
      merged = {
        key: Math.min(first.key, second.key),
        ids: [...new Set([...first.ids, ...second.ids])],
        start: first.start,
        end: second.end,
        oldText: first.oldText + second.oldText,
        changedByUser: first.changedByUser || second.changedByUser,
      };
      this.hunks = this.hunks.filter((h) => h !== other);
    }
    this.hunks.push(merged);
    this.hunks.sort((a, b) => a.start - b.start || a.end - b.end);
    return merged;
  }

  /** Trim equal lines off both ends; a hunk left with no difference is gone (the user
   * typed the old text back: reported as undone). */
  private settle(hunk: Hunk, byAgent: boolean): Decided[] {
    const oldLines = splitLines(hunk.oldText);
    const newLines = splitLines(this.text.slice(hunk.start, hunk.end));
    let head = 0;
    while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) {
      head++;
    }
    let tail = 0;
    while (
      tail < oldLines.length - head &&
      tail < newLines.length - head &&
      oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
    ) {
      tail++;
    }
    hunk.start += sum(newLines.slice(0, head));
    hunk.end -= sum(newLines.slice(newLines.length - tail));
    hunk.oldText = oldLines.slice(head, oldLines.length - tail).join('');
    if (hunk.start === hunk.end && hunk.oldText === '') {
      this.hunks = this.hunks.filter((h) => h !== hunk);
      return byAgent ? [] : [{ key: hunk.key, ids: hunk.ids, outcome: 'undone', line: lineAt(this.text, hunk.start) }];
    }
    return [];
  }

  /** Keep: the text stays; the hunk becomes part of the baseline. */
  keep(key: number): Decided | undefined {
    const hunk = this.hunk(key);
    if (!hunk) {
      return undefined;
    }
    this.lastUndo = undefined;
    this.hunks = this.hunks.filter((h) => h !== hunk);
    const line = lineAt(this.text, hunk.start);
    return hunk.changedByUser
      ? { key, ids: hunk.ids, outcome: 'changedByUser', text: this.text.slice(hunk.start, hunk.end), line }
      : { key, ids: hunk.ids, outcome: 'kept', line };
  }

  /** Undo: the change that puts the region back to its baseline text (the caller applies
   * it to the buffer as one edit), and the decision. */
  undo(key: number): { change: Change; decided: Decided } | undefined {
    const hunk = this.hunk(key);
    if (!hunk) {
      return undefined;
    }
    const mark: UndoMark = { textBefore: this.text, hunksBefore: this.hunks.map((h) => ({ ...h, ids: [...h.ids] })), textAfter: '' };
    const change: Change = { offset: hunk.start, length: hunk.end - hunk.start, text: hunk.oldText };
    this.hunks = this.hunks.filter((h) => h !== hunk);
    const delta = change.text.length - change.length;
    this.text = applyChange(this.text, change);
    for (const h of this.hunks) {
      if (h.start >= hunk.end) {
        h.start += delta;
        h.end += delta;
      }
    }
    mark.textAfter = this.text;
    this.lastUndo = mark;
    return { change, decided: { key, ids: hunk.ids, outcome: 'undone', line: lineAt(this.text, hunk.start) } };
  }

  /** After the editor's own undo (Ctrl+Z) of our last Undo: the hunk is pending again. */
  restoreAfterUndo(): Hunk[] {
    const mark = this.lastUndo;
    if (!mark || this.text !== mark.textBefore) {
      return [];
    }
    this.lastUndo = undefined;
    const known = new Set(this.hunks.map((h) => h.key));
    this.hunks = mark.hunksBefore;
    return this.hunks.filter((h) => !known.has(h.key));
  }

  /** The buffer holds `text` and we do not know how it got there (it was reverted,
   * reloaded...): re-derive the hunks by diffing the baseline against it. Hunks whose
   * region is back to the baseline are reported undone; the others count as changed. */
  resync(text: string): Decided[] {
    if (text === this.text) {
      return [];
    }
    this.lastUndo = undefined;
    const baseline = this.baseline();
    const old = this.hunks;
    // Where each old hunk sits in the baseline.
    const spans: Array<[number, number]> = [];
    let shift = 0;
    for (const h of old) {
      const start = h.start + shift;
      spans.push([start, start + h.oldText.length]);
      shift += h.oldText.length - (h.end - h.start);
    }
    const a = splitLines(baseline);
    const b = splitLines(text);
    const aStarts = [0];
    for (const line of a) {
      aStarts.push(aStarts[aStarts.length - 1] + line.length);
    }
    const bStarts = [0];
    for (const line of b) {
      bStarts.push(bStarts[bStarts.length - 1] + line.length);
    }
    this.text = text;
    this.hunks = [];
    const claimed = new Set<number>();
    for (const [a1, a2, b1, b2] of diffLines(a, b)) {
      const from = aStarts[a1];
      const to = aStarts[a2];
      const owners = old.filter((_, i) => {
        const [s, e] = spans[i];
        const hit = s < e ? s < Math.max(to, from + 1) && e > from : s >= from && s <= to;
        if (hit) {
          claimed.add(i);
        }
        return hit;
      });
      this.hunks.push({
        key: owners[0]?.key ?? this.nextKey++,
        ids: [...new Set(owners.flatMap((h) => h.ids))],
        start: bStarts[b1],
        end: bStarts[b2],
        oldText: baseline.slice(from, to),
        changedByUser: true,
      });
    }
    // A diff hunk the agent never made (the user's, outside every hunk) folds into the baseline.
    this.hunks = this.hunks.filter((h) => h.ids.length > 0);
    return old
      .filter((_, i) => !claimed.has(i))
      .map((h) => ({ key: h.key, ids: h.ids, outcome: 'undone' as const, line: lineAt(text, Math.min(h.start, text.length)) }));
  }

  /** How many lines each hunk adds and removes (for labels). */
  static counts(review: FileReview, hunk: Hunk): { added: number; removed: number } {
    return { added: splitLines(review.text.slice(hunk.start, hunk.end)).length, removed: splitLines(hunk.oldText).length };
  }
}
