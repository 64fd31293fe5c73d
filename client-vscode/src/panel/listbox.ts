/**
 * The pickers of the panel's prompt box (`/` commands, `@` attachments) as one listbox,
 * without the DOM: which row is active, what each key does, and when a picker that Escape
 * closed may open again. The focus never leaves the prompt box (ARIA's combobox pattern:
 * the box names the active option with aria-activedescendant), so the keys reach the box
 * first and only those the listbox takes are kept from it. Pure, unit-tested;
 * webview/listboxPicker.ts draws it.
 */

/** The parts of a KeyboardEvent the listbox reads. */
export interface ListboxKey {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** An input method is composing: every key is its own. */
  isComposing: boolean;
}

/** What a key does to an open picker. */
export type ListboxOutcome = { kind: 'move'; active: number } | { kind: 'choose'; index: number } | { kind: 'dismiss' };

/** The active row after a move of `delta` in a list of `count` rows (it wraps around). */
export function moveActive(active: number, delta: number, count: number): number {
  if (count <= 0) {
    return 0;
  }
  return (((active + delta) % count) + count) % count;
}

/**
 * What `key` does to an open picker of `count` rows whose row `active` is active;
 * undefined when the key is the prompt box's (typing, moving the caret, sending).
 */
export function listboxKey(key: ListboxKey, active: number, count: number): ListboxOutcome | undefined {
  if (key.isComposing) {
    return undefined;
  }
  switch (key.key) {
    case 'ArrowDown':
    case 'ArrowUp':
      return count === 0 ? undefined : { kind: 'move', active: moveActive(active, key.key === 'ArrowDown' ? 1 : -1, count) };
    case 'Home':
    case 'End':
      // Plain Home and End only: with Shift they select text, with Ctrl they go to the
      // start or end of the whole box, as they do with no picker open.
      if (count === 0 || key.shiftKey || key.ctrlKey || key.metaKey || key.altKey) {
        return undefined;
      }
      return { kind: 'move', active: key.key === 'Home' ? 0 : count - 1 };
    case 'Enter':
    case 'Tab':
      // Shift+Enter still adds a line, Shift+Tab still leaves the box; with nothing to
      // choose, Enter sends the prompt.
      return key.shiftKey || count === 0 ? undefined : { kind: 'choose', index: active };
    case 'Escape':
      return { kind: 'dismiss' };
    default:
      return undefined;
  }
}

/** What `follow` found: no picker, a picker just opened, or one that was open already. */
export type Follow = 'closed' | 'opened' | 'open';

/**
 * One picker's state. A picker is for a word of the prompt (a command's name at the start,
 * an `@` word anywhere), named by where the word starts.
 */
export class ListboxModel<T> {
  open = false;
  rows: readonly T[] = [];
  active = 0;
  /** Escape closed the picker on the word starting here: it stays closed until the caret leaves that word. */
  private dismissedAt: number | undefined;

  /** `keyOf` tells rows apart, so that the active row stays on its row as the rows change. */
  constructor(private readonly keyOf: (row: T) => string) {}

  /** The active row, if there are rows. */
  get activeRow(): T | undefined {
    return this.rows[this.active];
  }

  /**
   * The caret is in the picker's word starting at `at` (undefined: in no such word). An
   * opening starts on the first row with no rows, not on those of the last opening.
   */
  follow(at: number | undefined): Follow {
    if (at === undefined) {
      this.dismissedAt = undefined;
      this.open = false;
      return 'closed';
    }
    if (this.dismissedAt === at) {
      return 'closed';
    }
    if (this.open) {
      return 'open';
    }
    this.open = true;
    this.rows = [];
    this.active = 0;
    return 'opened';
  }

  /** The rows now listed: the active row stays on its row while that is listed, else the first is active. */
  setRows(rows: readonly T[]): void {
    const before = this.activeRow;
    const key = before === undefined ? undefined : this.keyOf(before);
    this.rows = rows;
    const kept = key === undefined ? -1 : rows.findIndex((row) => this.keyOf(row) === key);
    this.active = kept >= 0 ? kept : 0;
  }

  close(): void {
    this.open = false;
  }

  /** What `key` does (undefined: nothing, the key is the prompt box's); a move or Escape is applied. */
  key(key: ListboxKey, at: number | undefined): ListboxOutcome | undefined {
    if (!this.open) {
      return undefined;
    }
    const outcome = listboxKey(key, this.active, this.rows.length);
    if (outcome?.kind === 'move') {
      this.active = outcome.active;
    } else if (outcome?.kind === 'dismiss') {
      this.dismissedAt = at;
      this.open = false;
    }
    return outcome;
  }
}
