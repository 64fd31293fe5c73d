/**
 * Drawing the conversation. Actions from the extension are queued and applied once per
 * animation frame, and only the items whose `rev` changed are rebuilt, so a fast stream costs
 * one render per frame. Only the last WINDOW items are in the DOM; older ones come back with
 * "Show earlier". Also the status line, the context meter and what is said to screen readers.
 */
import { compactionText, contextMeter, reduce, type Action, type Conversation } from '../src/panel/model';
import { button, h } from './dom';
import { post } from './host';
import { renderItem } from './items';
import { announce, ui } from './layout';
import { saveState, state, WINDOW } from './state';

const STATE_WORDS: Record<string, string> = {
  preparing: 'Preparing…',
  model_running: 'Thinking…',
  tool_running: 'Running a tool…',
  awaiting_human: 'Waiting for you',
  completed: 'Finishing…',
  failed: 'Failing…',
  aborted: 'Stopping…',
};

function nearBottom(): boolean {
  const el = document.scrollingElement ?? document.documentElement;
  return el.scrollHeight - el.scrollTop - el.clientHeight < 80;
}

export function render(): void {
  const c = state.conversation;
  const { earlier, log, prompt, sendButton } = ui;
  const { options } = state;
  const stick = nearBottom();
  const visible = c.items.slice(Math.max(0, c.items.length - state.shown));
  const hidden = c.items.length - visible.length;
  earlier.hidden = hidden === 0;
  earlier.textContent = `Show ${Math.min(hidden, WINDOW)} earlier item${hidden === 1 ? '' : 's'} (${hidden} hidden)`;
  ui.empty.hidden = c.items.length > 0;

  const { rendered, streams } = state;
  const keep = new Set<string>();
  let previous: Element | null = null;
  for (const item of visible) {
    keep.add(item.id);
    let entry = rendered.get(item.id);
    const stream = item.kind === 'text' && item.streaming ? streams.get(item.id) : undefined;
    if (entry && stream && entry.rev !== item.rev && item.kind === 'text') {
      // A growing answer: append what became stable, replace only the open tail.
      const out = stream.inc.update(item.text);
      if (out.reset) {
        stream.stable.innerHTML = out.appended;
      } else if (out.appended) {
        stream.stable.insertAdjacentHTML('beforeend', out.appended);
      }
      stream.tail.innerHTML = out.tail;
      entry.rev = item.rev;
    } else if (!entry || entry.rev !== item.rev) {
      const el = renderItem(item);
      el.dataset.id = item.id;
      if (entry) {
        const hadFocus = entry.el.contains(document.activeElement);
        entry.el.replaceWith(el);
        if (hadFocus) {
          (el.querySelector('button, textarea, summary') as HTMLElement | null)?.focus();
        }
      }
      entry = { rev: item.rev, el };
      rendered.set(item.id, entry);
    }
    const expected: Element | null = previous ? previous.nextElementSibling : log.firstElementChild;
    if (expected !== entry.el) {
      if (previous) {
        previous.after(entry.el);
      } else {
        log.prepend(entry.el);
      }
    }
    previous = entry.el;
  }
  for (const [id, entry] of rendered) {
    if (!keep.has(id)) {
      entry.el.remove();
      rendered.delete(id);
      streams.delete(id);
    }
  }

  const running = c.runId !== undefined;
  ui.statusLine.hidden = !running;
  ui.statusText.textContent = [c.stepText, STATE_WORDS[c.state ?? ''] ?? c.state].filter(Boolean).join(' · ');
  log.setAttribute('aria-busy', String(running && c.state === 'model_running'));
  prompt.disabled = c.readOnly && !options.worktree;
  sendButton.disabled = c.readOnly && !options.worktree;
  sendButton.title = options.worktree
    ? 'Start a run in a new worktree (Enter)'
    : running
      ? 'Send to the running agent: it reads it before its next step (Enter)'
      : 'Send (Enter)';
  ui.steerButton.hidden = !running || options.worktree;
  renderMeter(c);
  const { readOnlyBar } = ui;
  if (c.readOnly && readOnlyBar.hidden) {
    const cont = button('Continue this session', () => post({ type: 'continueSession' }), { class: 'primary continue' });
    readOnlyBar.replaceChildren(h('span', {}, 'A past session, read-only. '), cont);
  }
  readOnlyBar.hidden = !c.readOnly;
  if (stick) {
    window.scrollTo(0, document.body.scrollHeight);
  }
}

function renderMeter(c: Conversation): void {
  const ctx = c.context;
  const { meter } = ui;
  meter.hidden = !ctx;
  ui.contextBar.hidden = !ctx;
  if (!ctx) {
    return;
  }
  const m = contextMeter(ctx.used, ctx.limit);
  ui.meterFill.style.width = `${m.percent}%`;
  meter.dataset.level = m.level;
  meter.title = m.label;
  meter.setAttribute('aria-valuenow', String(m.percent));
  meter.setAttribute('aria-valuetext', m.label);
  meter.setAttribute('aria-label', m.label);
  ui.meterText.textContent = m.short;
}

/** What a screen reader is told of an action, if anything. */
function describe(action: Action): string | undefined {
  switch (action.type) {
    case 'approval':
      return 'The agent needs your approval.';
    case 'ask':
      return `The agent asks: ${action.question}`;
    case 'runEnded':
      return action.cancelled ? 'Run stopped.' : `Run ${action.result?.status ?? 'failed'}.`;
    case 'runStarted':
      return 'Run started.';
    case 'messageQueued':
      return 'Message queued for the agent.';
    case 'messageDelivered':
      return 'Your message reached the agent.';
    case 'context':
      return action.params.compacted ? compactionText(action.params.compacted) : undefined;
    case 'notice':
      return action.params.message;
    default:
      return undefined;
  }
}

function flush(): void {
  state.frame = 0;
  let said: string | undefined;
  for (const action of state.queue.splice(0)) {
    state.conversation = reduce(state.conversation, action);
    said = describe(action) ?? said;
  }
  render();
  if (said) {
    announce(said);
  }
  const focusable = ui.log.querySelector('.card.approval:not(.answered) .choice, .card.ask:not(.answered) textarea');
  if (focusable && said && /approval|asks/.test(said)) {
    (focusable as HTMLElement).focus();
  }
}

/** An action of the extension, applied at the next animation frame with those that came meanwhile. */
export function queueAction(action: Action): void {
  state.queue.push(action);
  if (!state.frame) {
    state.frame = requestAnimationFrame(flush);
  }
}

export function setUpConversation(): void {
  ui.earlier.addEventListener('click', () => {
    state.shown += WINDOW;
    saveState();
    render();
  });
}
