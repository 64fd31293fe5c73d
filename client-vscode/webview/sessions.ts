/**
 * The past sessions: the section the view's Sessions action (its title bar) shows or hides,
 * each session opening read-only.
 */
import type { SessionInfo } from '../src/protocol';
import { button, h } from './dom';
import { post } from './host';
import { ui } from './layout';

/** The section's heading and its Close button, above whatever it lists. */
function sessionsHead(): HTMLElement {
  return h(
    'div',
    { class: 'worktrees-head' },
    h('span', { class: 'card-title' }, 'Past sessions'),
    button('Close', () => toggleSessions(false), { class: 'link-button close-sessions', title: 'Hide the past sessions' }),
  );
}

/** Show or hide the past sessions (the title-bar action toggles them); shown, they are listed again. */
export function toggleSessions(force?: boolean): void {
  const { sessionsBox } = ui;
  const open = force ?? sessionsBox.hidden;
  const hadFocus = sessionsBox.contains(document.activeElement);
  sessionsBox.hidden = !open;
  if (open) {
    sessionsBox.replaceChildren(sessionsHead(), h('p', { class: 'muted' }, 'Loading sessions…'));
    post({ type: 'listSessions' });
  } else if (hadFocus) {
    ui.prompt.focus();
  }
}

/** A session's last write (seconds since the epoch) in the user's words. */
function when(updated: number): string {
  const date = new Date(updated * 1000);
  return Number.isNaN(date.getTime()) ? String(updated) : date.toLocaleString();
}

/** The answer to `listSessions`, newest first. */
export function showSessions(sessions: SessionInfo[], error?: string): void {
  const { sessionsBox } = ui;
  if (error) {
    sessionsBox.replaceChildren(sessionsHead(), h('p', { class: 'error' }, `Could not list sessions: ${error}`));
    return;
  }
  if (sessions.length === 0) {
    sessionsBox.replaceChildren(sessionsHead(), h('p', { class: 'muted' }, 'No sessions yet.'));
    return;
  }
  const list = h('ul', { class: 'session-list', 'aria-label': 'Sessions, newest first' });
  for (const s of sessions) {
    const title = s.title || s.sessionId;
    const meta = [s.status, `${s.runs} run${s.runs === 1 ? '' : 's'}`, when(s.updated)].filter(Boolean).join(' · ');
    const open = button(
      '',
      () => {
        toggleSessions(false);
        post({ type: 'openSession', sessionId: s.sessionId });
      },
      { class: 'session', 'data-session': s.sessionId, 'aria-label': `Open session: ${title}. ${meta}` },
    );
    open.append(h('span', { class: 'session-title' }, title), h('span', { class: 'session-meta' }, meta));
    list.append(h('li', {}, open));
  }
  sessionsBox.replaceChildren(sessionsHead(), list);
  (list.querySelector('button') as HTMLButtonElement | null)?.focus();
}
