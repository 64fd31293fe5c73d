/**
 * The conversation's items, one element each, drawn from src/panel/model.ts's `Item`: one
 * function per kind, chosen by a switch the compiler checks is exhaustive.
 */
import { IncrementalMarkdown, renderMarkdown } from '../src/panel/markdown';
import { approvalSubagent, askedBy, canUndo, compactionText, formatTokens, instructionLinks, MESSAGE_STATE_WORDS, undoOffer, type Item, type SubagentRun } from '../src/panel/model';
import { button, h } from './dom';
import { post } from './host';
import { saveState, state } from './state';

/** The item of one kind. */
type ItemOf<K extends Item['kind']> = Extract<Item, { kind: K }>;

const TOOL_ICONS: Record<string, string> = { running: '◌', done: '✓', failed: '✗', interrupted: '⚠' };
const PLAN_ICONS: Record<string, string> = { done: '☑', in_progress: '◐', pending: '☐' };
const PLAN_WORDS: Record<string, string> = { done: 'done', in_progress: 'in progress', pending: 'to do' };
const END_WORDS: Record<string, string> = { success: '✓ Done', partial: '⚠ Partial', failed: '✗ Failed', cancelled: '⊘ Stopped' };

function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

export function renderItem(item: Item): HTMLElement {
  switch (item.kind) {
    case 'user':
      return userItem(item);
    case 'message':
      return messageItem(item);
    case 'compaction':
      return h('div', { class: 'run-end compaction', 'data-kind': 'compaction', role: 'note' }, compactionText(item.compacted));
    case 'notice':
      return noticeItem(item);
    case 'text':
      return textItem(item);
    case 'tool':
      return toolItem(item);
    case 'approval':
      return approvalItem(item);
    case 'ask':
      return askItem(item);
    case 'plan':
      return planItem(item);
    case 'review':
      return reviewItem(item);
    case 'end':
      return endItem(item);
    case 'restore':
      return restoreItem(item);
    default:
      return unknownKind(item);
  }
}

/** Never called: a kind added to `Item` without its renderer fails to compile here. */
function unknownKind(item: never): HTMLElement {
  return h('div', { class: 'notice warning' }, `An item this panel cannot show: ${(item as { kind?: string }).kind ?? '?'}`);
}

/** A `<details>` that stays open, or closed, as the user left it when it is drawn again. */
function keptOpen(details: HTMLDetailsElement, id: string): HTMLDetailsElement {
  details.open = state.openCards.has(id);
  details.addEventListener('toggle', () => {
    if (details.open) {
      state.openCards.add(id);
    } else {
      state.openCards.delete(id);
    }
    saveState();
  });
  return details;
}

/** A `<details>` that is open until the user folds it (remembered as `closed:<id>` among
 * the cards the user set, so it stays folded when drawn again). */
function keptOpenUnlessClosed(details: HTMLDetailsElement, id: string): HTMLDetailsElement {
  const key = `closed:${id}`;
  details.open = !state.openCards.has(key);
  details.addEventListener('toggle', () => {
    if (details.open) {
      state.openCards.delete(key);
    } else {
      state.openCards.add(key);
    }
    saveState();
  });
  return details;
}

function userItem(item: ItemOf<'user'>): HTMLElement {
  return h(
    'div',
    { class: 'msg user', 'data-kind': 'user' },
    h(
      'div',
      { class: 'who' },
      item.agent ? `You → ${item.agent}` : 'You',
      item.folder ? h('span', { class: 'run-folder', 'data-folder': item.folder, title: `The run worked in the folder ${item.folder}` }, `in ${item.folder}`) : undefined,
      modelsLabel(item.models),
    ),
    h('div', { class: 'user-text' }, item.text),
    instructionsLine(item.instructions),
  );
}

function messageItem(item: ItemOf<'message'>): HTMLElement {
  return h(
    'div',
    { class: `msg user mid-run ${item.state}`, 'data-kind': 'message', 'data-state': item.state, 'data-message': item.messageId },
    h('div', { class: 'who' }, item.mode === 'steer' ? 'You (steer)' : 'You (during the run)'),
    h('div', { class: 'user-text' }, item.text),
    h('div', { class: 'message-state', 'aria-label': `Message ${MESSAGE_STATE_WORDS[item.state]}` }, MESSAGE_STATE_WORDS[item.state]),
  );
}

function noticeItem(item: ItemOf<'notice'>): HTMLElement {
  return h(
    'div',
    { class: `notice ${item.level}`, 'data-kind': 'notice', 'data-level': item.level, role: item.level === 'error' ? 'alert' : 'note' },
    h('span', { class: 'icon', 'aria-hidden': 'true' }, item.level === 'info' ? 'ℹ' : '⚠'),
    h('span', { class: 'notice-text' }, item.message),
  );
}

function textItem(item: ItemOf<'text'>): HTMLElement {
  const body = h('div', { class: 'markdown' });
  // Safe: the Markdown renderer escapes every tag of the model's text (html: false) and
  // keeps only http(s)/mailto/relative links; the CSP would block any script anyway.
  if (item.streaming) {
    const stream = { inc: new IncrementalMarkdown(), stable: h('div', { class: 'md-stable' }), tail: h('div', { class: 'md-tail' }) };
    const out = stream.inc.update(item.text);
    stream.stable.innerHTML = out.appended;
    stream.tail.innerHTML = out.tail;
    body.append(stream.stable, stream.tail);
    state.streams.set(item.id, stream);
  } else {
    state.streams.delete(item.id);
    body.innerHTML = renderMarkdown(item.text);
  }
  return h('div', { class: `msg assistant${item.streaming ? ' streaming' : ''}`, 'data-kind': 'text', 'aria-busy': String(item.streaming) }, body);
}

function toolItem(item: ItemOf<'tool'>): HTMLElement {
  const details = keptOpen(h('details', { class: `tool ${item.state}`, 'data-kind': 'tool', 'data-tool': item.tool, 'data-state': item.state }), item.id);
  const stateWord = item.state === 'running' ? 'running' : item.state;
  details.append(
    h(
      'summary',
      { 'aria-label': `${item.tool} ${item.summary}: ${stateWord}` },
      h('span', { class: 'icon', 'aria-hidden': 'true' }, TOOL_ICONS[item.state] ?? '•'),
      h('span', { class: 'tool-name' }, item.tool),
      h('span', { class: 'args' }, item.summary),
      h('span', { class: 'tool-state' }, stateWord),
    ),
    h('div', { class: 'tool-result' }, item.result ? item.result : item.state === 'running' ? 'Running…' : 'No result summary.'),
  );
  const nested = item.subagent ? subagentBlock(item.subagent, item.id) : undefined;
  const links: HTMLElement[] = [];
  if (item.terminal) {
    links.push(
      button('Show in terminal', () => post({ type: 'showTerminal', runId: item.runId }), {
        class: 'link-button terminal',
        title: "Show the command's output in the run's terminal",
      }),
    );
  }
  if (item.path) {
    const path = item.path;
    links.push(
      button(`Review ${path}`, () => post({ type: 'openEdit', path, runId: item.runId }), {
        class: 'link-button review',
        title: `Open ${path} in the editor`,
      }),
    );
  }
  if (links.length === 0 && !nested) {
    return details;
  }
  return h('div', { class: 'tool-wrap' }, details, nested, ...links);
}

const SUBAGENT_WORDS: Record<string, string> = { success: '✓ done', partial: '⚠ partial', failed: '✗ failed', interrupted: '⚠ stopped' };

/** A `delegate` card's subagent, nested under it: who, on what model, its task, each of its
 * tool calls with its state, and how it ended. Open until the user folds it. */
function subagentBlock(child: SubagentRun, cardId: string): HTMLElement {
  const details = keptOpenUnlessClosed(
    h('details', { class: `subagent ${child.status ?? 'running'}`, 'data-kind': 'subagent', 'data-agent': child.agent, 'data-status': child.status ?? 'running' }),
    `${cardId}/subagent`,
  );
  const ending: string[] = [];
  if (child.status) {
    ending.push(SUBAGENT_WORDS[child.status] ?? child.status);
    if (child.stepCount !== undefined) {
      ending.push(`${child.stepCount} step${child.stepCount === 1 ? '' : 's'}`);
    }
    if (child.tokens) {
      ending.push(`${formatTokens(child.tokens)} tokens`);
    }
  } else {
    ending.push(child.background ? 'working in the background' : 'working');
  }
  const title = `Subagent ${child.agent}${child.model ? ` (${child.model})` : ''}: ${ending.join(', ')}`;
  details.append(
    h(
      'summary',
      { 'aria-label': title },
      h('span', { class: 'icon', 'aria-hidden': 'true' }, '↳'),
      h('span', { class: 'subagent-name' }, child.agent),
      child.model ? h('span', { class: 'subagent-model' }, child.model) : undefined,
      h('span', { class: 'subagent-state' }, ending.join(' · ')),
    ),
  );
  if (child.task) {
    details.append(h('div', { class: 'subagent-task' }, child.task));
  }
  const list = h('ul', { class: 'subagent-steps', 'aria-label': `${child.agent}'s tool calls` });
  for (const step of child.steps) {
    list.append(
      h(
        'li',
        { class: `subagent-step ${step.state}`, 'data-state': step.state, 'data-tool': step.tool, title: step.result ?? '' },
        h('span', { class: 'icon', 'aria-hidden': 'true' }, TOOL_ICONS[step.state] ?? '•'),
        h('span', { class: 'tool-name' }, step.tool),
        h('span', { class: 'args' }, step.summary),
        step.result ? h('span', { class: 'subagent-result' }, step.result) : undefined,
      ),
    );
  }
  if (child.steps.length > 0) {
    details.append(list);
  }
  if (child.report) {
    details.append(h('div', { class: 'subagent-report' }, child.report));
  }
  return details;
}

function approvalItem(item: ItemOf<'approval'>): HTMLElement {
  const card = h('div', { class: 'card approval', role: 'group', 'aria-label': 'Approval needed', 'data-kind': 'approval' });
  const subagent = approvalSubagent(item.message);
  const title = subagent ? `Approval needed · subagent ${subagent}` : 'Approval needed';
  if (subagent) {
    card.dataset.subagent = subagent;
  }
  card.append(h('div', { class: 'card-title' }, title), h('pre', { class: 'approval-text', tabindex: '0' }, item.message));
  if (item.answer !== undefined) {
    card.classList.add('answered');
    card.append(h('div', { class: 'answer' }, item.answer === 'withdrawn' ? 'The question was withdrawn.' : `You chose: ${item.answer}`));
    return card;
  }
  const row = h('div', { class: 'actions' });
  item.actions.forEach((title, i) => {
    const primary = i === 0 ? ' primary' : '';
    const danger = /stop/i.test(title) ? ' danger' : '';
    row.append(button(title, () => post({ type: 'approve', id: item.id, answer: title }), { class: `choice${primary}${danger}`, 'data-choice': title }));
  });
  card.append(row);
  return card;
}

function askItem(item: ItemOf<'ask'>): HTMLElement {
  const asked = askedBy(item.question);
  const who = asked.subagent ? `The subagent ${asked.subagent} asks` : 'The agent asks';
  const card = h('div', { class: 'card ask', role: 'group', 'aria-label': who, 'data-kind': 'ask' });
  card.append(h('div', { class: 'card-title' }, who), h('div', { class: 'question' }, asked.text));
  if (item.answered) {
    card.classList.add('answered');
    card.append(h('div', { class: 'answer' }, item.answer === null || item.answer === undefined ? 'No answer.' : `You answered: ${item.answer}`));
    return card;
  }
  const input = h('textarea', { class: 'ask-input', rows: '2', 'aria-label': `Answer: ${item.question}` });
  input.value = item.default ?? '';
  const submit = (): void => post({ type: 'answer', id: item.id, answer: input.value });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  card.append(
    input,
    h(
      'div',
      { class: 'actions' },
      button('Answer', submit, { class: 'choice primary' }),
      button('Skip', () => post({ type: 'answer', id: item.id, answer: null }), { class: 'choice' }),
    ),
  );
  return card;
}

function planItem(item: ItemOf<'plan'>): HTMLElement {
  const done = item.steps.filter((s) => s.status === 'done').length;
  const list = h('ul', { class: 'plan-steps', 'aria-label': `Plan: ${done} of ${item.steps.length} done` });
  for (const step of item.steps) {
    list.append(
      h(
        'li',
        { class: `plan-step ${step.status}`, 'data-status': step.status },
        h('span', { class: 'icon', 'aria-hidden': 'true' }, PLAN_ICONS[step.status] ?? '☐'),
        h('span', { class: 'sr-only' }, `${PLAN_WORDS[step.status] ?? step.status}: `),
        h('span', {}, step.text),
      ),
    );
  }
  return h(
    'div',
    { class: 'card plan', 'data-kind': 'plan', role: 'group', 'aria-label': 'Plan' },
    h('div', { class: 'card-title' }, `Plan · ${done}/${item.steps.length}`),
    item.goal ? h('div', { class: 'goal' }, item.goal) : undefined,
    list,
  );
}

function reviewItem(item: ItemOf<'review'>): HTMLElement {
  const details = keptOpen(h('details', { class: 'review-note', 'data-kind': 'review', 'data-run': item.runId }), item.id);
  const where = item.otherSession ? ' (in another conversation)' : '';
  details.append(
    h('summary', {}, h('span', { class: 'icon', 'aria-hidden': 'true' }, '◆'), h('span', {}, `Told the agent your review${where}: ${item.summary}`)),
    h('div', { class: 'muted' }, 'What the agent was given, word for word:'),
    h('pre', { class: 'review-text', tabindex: '0' }, item.note),
  );
  return details;
}

function endItem(item: ItemOf<'end'>): HTMLElement {
  const parts = [END_WORDS[item.status] ?? item.status];
  if (item.steps !== undefined) {
    parts.push(`${item.steps} step${item.steps === 1 ? '' : 's'}`);
  }
  if (item.tokens) {
    parts.push(`${formatNumber(item.tokens)} tokens (${formatNumber(item.promptTokens ?? 0)} in, ${formatNumber(item.completionTokens ?? 0)} out)`);
  }
  if (item.cost !== undefined) {
    parts.push(`$${item.cost < 0.01 ? item.cost.toFixed(4) : item.cost.toFixed(2)}`);
  }
  if (item.seconds !== undefined) {
    parts.push(`${item.seconds.toFixed(1)} s`);
  }
  return h(
    'div',
    { class: `run-end ${item.status}`, 'data-kind': 'end', 'data-status': item.status },
    h('div', { class: 'run-summary' }, parts.join(' · ')),
    item.detail && item.status !== 'success' ? h('div', { class: 'run-detail' }, item.detail) : undefined,
    ...undoOfRun(item),
  );
}

function restoreItem(item: ItemOf<'restore'>): HTMLElement {
  const lines = [`${item.status === 'partial' ? '↶ Partly undone' : '↶ Undone'}: run ${item.restores} (${item.restored.length} file${item.restored.length === 1 ? '' : 's'} restored)`];
  const details = h('ul', { class: 'restore-files' });
  for (const path of item.restored) {
    details.append(h('li', {}, `restored ${path}`));
  }
  for (const path of item.conflicts) {
    details.append(h('li', { class: 'conflict' }, `kept ${path} (you changed it since)`));
  }
  for (const u of item.unrestorable) {
    details.append(h('li', { class: 'error' }, `not restored ${u.path}: ${u.reason}`));
  }
  return h(
    'div',
    { class: 'run-end restore', 'data-kind': 'restore', 'data-run': item.runId, role: 'note' },
    h('div', { class: 'run-summary' }, lines.join(' ')),
    details,
    undoButton(item, 'Undo this undo', 'Bring back what this undo removed'),
  );
}

/** The models that answered the run (` · openai/a → openai/b`); nothing before one is known. */
function modelsLabel(models: string[] | undefined): HTMLElement | undefined {
  if (!models || models.length === 0) {
    return undefined;
  }
  return h('span', { class: 'models', title: 'The model that answered', 'data-models': models.join(' ') }, ` · ${models.join(' → ')}`);
}

/** The instruction files the model was given, each opening its file; nothing when none. */
function instructionsLine(files: string[] | undefined): HTMLElement | undefined {
  const links = instructionLinks(files);
  if (links.length === 0) {
    return undefined;
  }
  const line = h('div', { class: 'instructions', role: 'group', 'aria-label': 'Instruction files given to the model' }, h('span', { class: 'instructions-label' }, 'Instructions:'));
  for (const link of links) {
    const path = link.path;
    line.append(
      ' ',
      path
        ? button(link.label, () => post({ type: 'openFile', path }), { class: 'link-button instruction', 'data-path': path, title: `Open ${path}` })
        : h('span', { class: 'instruction', title: 'Your own AGENTS.md, in the agentls user config directory' }, link.label),
    );
  }
  return line;
}

/** The undo of a run's end: a button saying what it does now, and why when it does less
 * than the whole run (the user undid part of it already) or nothing. */
function undoOfRun(item: Item): Array<HTMLElement | undefined> {
  const c = state.conversation;
  if (!(c.undoable ?? []).includes(item.runId)) {
    return [];
  }
  const offer = undoOffer(c.undoPreviews?.[item.runId]);
  const whole = 'Put the files back as they were before this run (later runs of the session are undone too)';
  return [
    offer.detail ? h('div', { class: 'undo-detail', 'data-run': item.runId }, offer.detail) : undefined,
    offer.label ? undoButton(item, offer.label, offer.detail ?? whole) : undefined,
  ];
}

/** The undo button of a run's end (or of an undo), when the run changed files. */
function undoButton(item: Item, label: string, title: string): HTMLButtonElement | undefined {
  if (!canUndo(state.conversation, item)) {
    return undefined;
  }
  const runId = item.runId;
  return button(label, () => post({ type: 'undoRun', runId }), {
    class: 'link-button undo',
    'data-run': runId,
    title,
    'aria-label': `${label} ${runId}: ${title}`,
  });
}
