/**
 * The one listbox picker of the prompt box, drawn: both the `/` command picker and the `@`
 * attachment picker are one of these. The focus stays in the prompt box, which names the
 * active option (aria-activedescendant) and says whether a list is shown (aria-expanded) and
 * which (aria-controls); the options are `role=option` in a `role=listbox`. Its keys and
 * rows are src/panel/listbox.ts's; what a row shows and what choosing it does are the
 * picker's own.
 */
import { ListboxModel, type Follow } from '../src/panel/listbox';
import { h } from './dom';

export interface ListboxView<T> {
  /** The prompt box: it keeps the focus and the caret. */
  input: HTMLTextAreaElement;
  /** What shows and hides with the list (the list, and the picker's notes under it). */
  box: HTMLElement;
  list: HTMLElement;
  /** Option ids are `${idPrefix}-${index}`. */
  idPrefix: string;
  /** The options' classes, besides `active` on the active one. */
  optionClass: string;
  /** Tells rows apart: the active row stays on its row as the rows change. */
  keyOf(row: T): string;
  /** An option's attributes (data-*, title) and content. */
  option(row: T): { attrs: Record<string, string>; children: (Node | string | undefined)[] };
  /** Where the picker's word under the caret starts, if the caret is in one. */
  wordStart(): number | undefined;
  choose(row: T): void;
  /** The options were drawn with `row` active (e.g. to announce it). */
  shown?(row: T, index: number, count: number): void;
}

export class ListboxPicker<T> {
  private readonly model: ListboxModel<T>;

  constructor(private readonly view: ListboxView<T>) {
    this.model = new ListboxModel<T>((row) => view.keyOf(row));
  }

  get open(): boolean {
    return this.model.open;
  }

  get rows(): readonly T[] {
    return this.model.rows;
  }

  /** Follows the caret: the picker closes when it leaves the picker's word (or after Escape in it). */
  follow(): Follow {
    const followed = this.model.follow(this.view.wordStart());
    if (followed === 'closed') {
      this.hide();
    }
    return followed;
  }

  /** Shows `rows` (the active row stays on its row while it is listed). */
  show(rows: readonly T[]): void {
    this.model.setRows(rows);
    this.draw();
  }

  close(): void {
    this.model.close();
    this.hide();
  }

  /** The picker's keys, from the prompt box's keydown; true when the key was the picker's. */
  handleKey(event: KeyboardEvent): boolean {
    const outcome = this.model.key(event, this.view.wordStart());
    if (!outcome) {
      return false;
    }
    event.preventDefault();
    switch (outcome.kind) {
      case 'move':
        this.draw();
        break;
      case 'choose':
        this.choose(outcome.index);
        break;
      case 'dismiss':
        // Escape closes the picker only, not what holds the panel.
        event.stopPropagation();
        this.hide();
        break;
    }
    return true;
  }

  private choose(index: number): void {
    const row = this.model.rows[index];
    if (row !== undefined) {
      this.view.choose(row);
    }
  }

  private hide(): void {
    // The other picker may be the one shown: the prompt box's attributes are its own then.
    if (this.view.box.hidden) {
      return;
    }
    this.view.box.hidden = true;
    this.view.input.removeAttribute('aria-activedescendant');
    this.view.input.setAttribute('aria-expanded', 'false');
  }

  private draw(): void {
    const { rows, active } = this.model;
    const view = this.view;
    view.list.replaceChildren(
      ...rows.map((row, i) => {
        const { attrs, children } = view.option(row);
        const option = h(
          'li',
          { id: `${view.idPrefix}-${i}`, class: `${view.optionClass}${i === active ? ' active' : ''}`, role: 'option', 'aria-selected': String(i === active), ...attrs },
          ...children,
        );
        // Keep the focus (and the caret) in the prompt box.
        option.addEventListener('mousedown', (event) => event.preventDefault());
        option.addEventListener('click', () => this.choose(i));
        return option;
      }),
    );
    view.list.hidden = rows.length === 0;
    view.box.hidden = false;
    view.input.setAttribute('aria-expanded', 'true');
    view.input.setAttribute('aria-controls', view.list.id);
    const row = this.model.activeRow;
    if (row === undefined) {
      view.input.removeAttribute('aria-activedescendant');
      return;
    }
    const id = `${view.idPrefix}-${active}`;
    view.input.setAttribute('aria-activedescendant', id);
    document.getElementById(id)?.scrollIntoView({ block: 'nearest' });
    view.shown?.(row, active, rows.length);
  }
}
