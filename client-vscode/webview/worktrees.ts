/**
 * The worktree sessions: runs in git worktrees of their own, one card each (src/panel/
 * worktrees.ts says what a card shows), with their Stop, Apply and Discard buttons.
 */
import { outcomeText, statsText, worktreeCards, type WorktreeCard } from '../src/panel/worktrees';
import { button, h } from './dom';
import { post } from './host';
import { ui } from './layout';
import { state } from './state';

/** Show or hide the worktree sessions (the view's Worktrees action toggles them); shown, they are listed again. */
export function toggleWorktrees(force?: boolean): void {
  state.worktreesOpen = force ?? !state.worktreesOpen;
  if (state.worktreesOpen) {
    post({ type: 'listWorktrees' });
  }
  renderWorktrees();
}

const WORKTREE_BADGES: Record<WorktreeCard['kind'], string> = {
  running: '◌',
  ready: '✓',
  'uncommitted changes': '⚠',
  missing: '✗',
  gone: '•',
};

function worktreeCard(card: WorktreeCard): HTMLElement {
  // A card that lists conflicts or an error takes the whole row: files and reasons need the width.
  const wide = card.outcome?.status === 'conflict' || card.outcome?.status === 'error' ? ' wide' : '';
  const el = h('article', { class: `worktree-card ${card.kind.replace(/ /g, '-')}${wide}`, 'data-worktree': card.name, 'data-state': card.kind, 'aria-label': `Worktree ${card.name}: ${card.state}` });
  el.append(
    h(
      'div',
      { class: 'worktree-head' },
      h('span', { class: 'worktree-name', title: card.branch ?? card.name }, card.name),
      h('span', { class: 'worktree-state', 'data-state': card.kind }, `${WORKTREE_BADGES[card.kind]} ${card.state}`),
    ),
  );
  if (card.prompt) {
    el.append(h('div', { class: 'worktree-prompt', title: card.prompt }, card.prompt));
  }
  if (card.stepText) {
    el.append(h('div', { class: 'worktree-step' }, card.stepText));
  }
  if (card.runStatus && card.runStatus !== 'success') {
    el.append(h('div', { class: 'worktree-run error' }, `Run ${card.runStatus}${card.detail ? `: ${card.detail}` : ''}`));
  }
  if (card.stats) {
    el.append(
      h(
        'div',
        { class: 'worktree-stats', 'aria-label': `${card.stats.files} files changed, ${card.stats.added} lines added, ${card.stats.removed} removed` },
        statsText(card.stats),
      ),
    );
  }
  const actions = h('div', { class: 'actions' });
  if (card.runId) {
    const runId = card.runId;
    actions.append(button('Stop', () => post({ type: 'stopRun', runId }), { class: 'choice stop-worktree', title: 'Stop this run' }));
  }
  if (card.canApply) {
    actions.append(
      button('Apply', () => post({ type: 'applyWorktree', name: card.name }), {
        class: 'choice primary apply-worktree',
        title: 'Write these changes into your tree as one agent edit, to keep or undo in the editor',
      }),
    );
  }
  if (card.canDiscard) {
    actions.append(
      button('Discard', () => post({ type: 'discardWorktree', name: card.name }), {
        class: 'choice danger discard-worktree',
        title: 'Delete this worktree and its branch (you are asked first)',
      }),
    );
  }
  if (card.busy) {
    actions.append(h('span', { class: 'muted' }, 'Working…'));
  }
  if (actions.childElementCount > 0) {
    // Above the outcome: a list of conflicts can be long, and in a short panel the buttons
    // under it were out of sight in the scrolled list.
    el.append(actions);
  }
  const o = card.outcome;
  if (o) {
    const box = h('div', { class: `worktree-outcome ${o.status}`, 'data-status': o.status, role: o.status === 'error' || o.status === 'conflict' ? 'alert' : 'status' }, outcomeText(o));
    if (o.conflicts.length > 0) {
      box.append(h('ul', { class: 'worktree-conflicts' }, ...o.conflicts.map((c) => h('li', {}, h('code', {}, c.path), ` — ${c.reason}`))));
    }
    if (o.merged.length > 0) {
      box.append(h('div', { class: 'muted' }, `Merged with your changes: ${o.merged.join(', ')}`));
    }
    el.append(box);
  }
  return el;
}

export function renderWorktrees(): void {
  const { worktrees } = state;
  const { worktreesBox } = ui;
  const cards = worktreeCards(worktrees);
  const open = state.worktreesOpen || cards.some((c) => c.kind === 'running');
  const hadFocus = worktreesBox.contains(document.activeElement) ? (document.activeElement as HTMLElement).className : undefined;
  worktreesBox.hidden = !open;
  if (!open) {
    if (hadFocus !== undefined) {
      ui.prompt.focus();
    }
    return;
  }
  const head = h(
    'div',
    { class: 'worktrees-head' },
    h('span', { class: 'card-title' }, 'Worktree sessions'),
    button('Refresh', () => post({ type: 'listWorktrees' }), { class: 'link-button refresh-worktrees', title: 'List the worktrees again' }),
    button('Close', () => toggleWorktrees(false), { class: 'link-button', title: 'Hide the worktree sessions' }),
  );
  const body: HTMLElement[] = [];
  if (worktrees.listError) {
    body.push(h('p', { class: 'error' }, `Could not list the worktrees: ${worktrees.listError}`));
  }
  if (cards.length === 0) {
    body.push(h('p', { class: 'muted' }, 'No worktree sessions. Tick “Run in a worktree” to start one.'));
  } else {
    body.push(h('div', { class: 'worktree-grid' }, ...cards.map(worktreeCard)));
  }
  worktreesBox.replaceChildren(head, ...body);
  if (hadFocus) {
    (worktreesBox.querySelector(`button[class="${hadFocus}"]`) as HTMLElement | null)?.focus();
  }
}
