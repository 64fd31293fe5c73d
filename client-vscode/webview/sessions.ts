/** The past sessions: the list under the toolbar's Sessions button, each opening its session read-only. */
import type { SessionInfo } from '../src/protocol';
import { button, h } from './dom';
import { post } from './host';
import { ui } from './layout';

function toggleSessions(force?: boolean): void {
  const { sessionsBox } = ui;
  const open = force ?? sessionsBox.hidden;
  sessionsBox.hidden = !open;
  ui.sessionsButton.setAttribute('aria-expanded', String(open));
  if (open) {
    sessionsBox.replaceChildren(h('p', { class: 'muted' }, 'Loading sessions…'));
    post({ type: 'listSessions' });
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
    sessionsBox.replaceChildren(h('p', { class: 'error' }, `Could not list sessions: ${error}`));
    return;
  }
  if (sessions.length === 0) {
    sessionsBox.replaceChildren(h('p', { class: 'muted' }, 'No sessions yet.'));
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
  sessionsBox.replaceChildren(list);
  (list.querySelector('button') as HTMLButtonElement | null)?.focus();
}

export function setUpSessions(): void {
  ui.sessionsButton.addEventListener('click', () => toggleSessions());
}
