/**
 * The agent panel's webview: renders the conversation (src/panel/model.ts) with plain DOM.
 * Actions from the extension are queued and applied once per animation frame, and only the
 * items whose `rev` changed are rebuilt, so a fast stream costs one render per frame. Only the
 * last WINDOW items are in the DOM; older ones come back with "Show earlier".
 */
import { addAttachment, attachOptions, attachQuery, chipLabel, imageAttachment, removeAttachment, removeQuery, type AttachOption } from '../src/panel/attachPicker';
import { commandQuery, filterCommands, insertCommand, moveActive, sourceLabel, typedCommand } from '../src/panel/commandPicker';
import { IncrementalMarkdown, renderMarkdown } from '../src/panel/markdown';
import type { FromWebview, PanelOptions, SessionSummary, ToWebview } from '../src/panel/messages';
import { canUndo, compactionText, contextMeter, emptyConversation, instructionLinks, MESSAGE_STATE_WORDS, reduce, undoOffer, type Action, type Conversation, type Item } from '../src/panel/model';
import { emptyWorktrees, outcomeText, statsText, worktreeCards, type WorktreeCard, type WorktreeSessions } from '../src/panel/worktrees';
import type { AgentInfo, AttachCandidate, Attachment, CommandInfo } from '../src/protocol';
import { MANAGE_TRUST_LABEL, RESTRICTED_NOTICE } from '../src/trust';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const WINDOW = 150;
const CONFIRM_LABELS: Record<PanelOptions['confirmMode'], string> = {
  'confirm-sensitive': 'Ask for sensitive actions',
  'confirm-all': 'Ask for every action',
  yolo: 'Never ask (yolo)',
};
const STATE_WORDS: Record<string, string> = {
  preparing: 'Preparing…',
  model_running: 'Thinking…',
  tool_running: 'Running a tool…',
  awaiting_human: 'Waiting for you',
  completed: 'Finishing…',
  failed: 'Failing…',
  aborted: 'Stopping…',
};

interface ViewState {
  draft: string;
  shown: number;
  open: string[];
}

// Empty until the extension's snapshot (the truth) replaces it.
let conversation: Conversation = emptyConversation();
let options: PanelOptions = { agent: 'build', confirmMode: 'confirm-sensitive', includeSelection: true, worktree: false };
let worktrees: WorktreeSessions = emptyWorktrees();
/** The user opened the worktree section (it also shows whenever there is a worktree to show). */
let worktreesOpen = false;
let agents: AgentInfo[] = [];
const queue: Action[] = [];
let frame = 0;
const saved = (vscode.getState() as Partial<ViewState> | undefined) ?? {};
let shown = typeof saved.shown === 'number' ? saved.shown : WINDOW;
/** Tool cards the user expanded (kept open when the card is rebuilt). */
const openCards = new Set<string>(Array.isArray(saved.open) ? saved.open : []);
const rendered = new Map<string, { rev: number; el: HTMLElement }>();
/** Streaming text blocks: their Markdown is rendered incrementally, their element kept. */
const streams = new Map<string, { inc: IncrementalMarkdown; stable: HTMLElement; tail: HTMLElement }>();

function post(message: FromWebview): void {
  vscode.postMessage(message);
}

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | undefined)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') {
      el.className = value;
    } else {
      el.setAttribute(key, value);
    }
  }
  for (const child of children) {
    if (child !== undefined) {
      el.append(child);
    }
  }
  return el;
}

function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const el = h('button', { type: 'button', ...attrs }, label);
  el.addEventListener('click', onClick);
  return el;
}

// ---- the static layout -------------------------------------------------------------------

const app = document.getElementById('app') as HTMLElement;
const announcer = h('div', { class: 'sr-only', 'aria-live': 'polite', role: 'status' });
const sessionsButton = button('Sessions', () => toggleSessions(), { id: 'sessions-button', 'aria-expanded': 'false', 'aria-controls': 'sessions', title: 'Past sessions' });
const newButton = button('New session', () => post({ type: 'newSession' }), { id: 'new-session', title: 'Start a new conversation' });
const worktreesButton = button('Worktrees', () => toggleWorktrees(), {
  id: 'worktrees-button',
  'aria-expanded': 'false',
  'aria-controls': 'worktrees',
  title: 'Runs in git worktrees of their own: their state, apply or discard their changes',
});
const outputButton = button('Log', () => post({ type: 'showOutput' }), { title: 'Show the Agent output channel' });
const meterFill = h('div', { class: 'meter-fill' });
const meterText = h('span', { class: 'meter-text' });
const meter = h(
  'div',
  { id: 'context-meter', class: 'context-meter', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '100', hidden: '' },
  h('div', { class: 'meter-bar', 'aria-hidden': 'true' }, meterFill),
  meterText,
);
const toolbar = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Agent panel' }, newButton, sessionsButton, worktreesButton, outputButton, meter);
const worktreesBox = h('section', { id: 'worktrees', class: 'worktrees', hidden: '', 'aria-label': 'Worktree sessions' });
const sessionsBox = h('section', { id: 'sessions', class: 'sessions', hidden: '', 'aria-label': 'Past sessions' });
const readOnlyBar = h('div', { class: 'readonly-bar', hidden: '', role: 'note' });
const trustBar = h(
  'div',
  { class: 'trust-bar', hidden: '', role: 'note' },
  h('span', { class: 'trust-text' }, RESTRICTED_NOTICE),
  ' ',
  button(MANAGE_TRUST_LABEL, () => post({ type: 'manageTrust' }), { class: 'link-button manage-trust', title: 'Open the Workspace Trust editor' }),
);
const earlier = button('', () => {
  shown += WINDOW;
  saveState();
  render();
}, { class: 'earlier' });
const log = h('div', { class: 'log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite', 'aria-relevant': 'additions text' });
const empty = h('div', { class: 'empty' }, 'Ask the agent to do something in this workspace. Enter sends, Shift+Enter adds a line.');
const statusText = h('span', { class: 'status-text' });
const stopButton = button('Stop', () => post({ type: 'cancel' }), { class: 'stop', title: 'Stop the run (it ends at the next safe point)' });
const statusLine = h('div', { class: 'status-line', hidden: '' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), statusText, stopButton);

const agentSelect = h('select', { id: 'agent', 'aria-label': 'Agent' });
const confirmSelect = h('select', { id: 'confirm', 'aria-label': 'Confirm mode' });
for (const [value, label] of Object.entries(CONFIRM_LABELS)) {
  confirmSelect.append(h('option', { value }, label));
}
const selectionBox = h('input', { type: 'checkbox', id: 'selection' });
const worktreeBox = h('input', { type: 'checkbox', id: 'worktree' });
const prompt = h('textarea', {
  id: 'prompt',
  rows: '3',
  'aria-label': 'Prompt for the agent (Enter sends, Shift+Enter adds a line, / at the start picks a command, @ attaches a file, a symbol, the problems or the changes; paste or drop an image to attach it)',
  placeholder: 'Ask the agent… (Enter sends, Shift+Enter new line, / for commands, @ to attach)',
  'aria-controls': 'command-list',
  'aria-describedby': 'command-hint',
});
const commandList = h('ul', { id: 'command-list', class: 'command-list', role: 'listbox', 'aria-label': 'Commands' });
const commandNote = h('div', { class: 'command-note', role: 'status' });
const commandProblemsBox = h('div', { class: 'command-problems' });
const picker = h('div', { id: 'command-picker', class: 'command-picker', hidden: '' }, commandList, commandNote, commandProblemsBox);
const hintLine = h('div', { id: 'command-hint', class: 'command-hint', hidden: '' });
const attachList = h('ul', { id: 'attach-list', class: 'command-list', role: 'listbox', 'aria-label': 'Attachments to choose from' });
const attachNote = h('div', { class: 'command-note attach-note', role: 'status' });
const attachPicker = h('div', { id: 'attach-picker', class: 'command-picker', hidden: '' }, attachList, attachNote);
const chips = h('div', { id: 'attachments', class: 'attachments', hidden: '', role: 'list', 'aria-label': 'Attached' });
const attachError = h('div', { class: 'attach-error', role: 'alert', hidden: '' });
const sendButton = button('Send', () => send(), { class: 'primary send', title: 'Send (Enter)' });
// Steer cuts the model call in flight; Send (queue) waits for it. Only offered during a run.
const steerButton = button('Steer', () => send('steer'), { class: 'steer', title: 'Steer: interrupt the model now with this message (Ctrl/Cmd+Enter)', hidden: '' });
const rejectedNote = h('div', { class: 'message-rejected', role: 'alert', hidden: '' });
const composer = h(
  'form',
  { class: 'composer', 'aria-label': 'New message' },
  chips,
  h('div', { class: 'prompt-wrap' }, picker, attachPicker, prompt),
  attachError,
  hintLine,
  rejectedNote,
  h(
    'div',
    { class: 'composer-row' },
    h('label', { class: 'field' }, h('span', { class: 'sr-only' }, 'Agent'), agentSelect),
    h('label', { class: 'field' }, h('span', { class: 'sr-only' }, 'Confirm mode'), confirmSelect),
    h('label', { class: 'check', title: 'Add the active editor’s selection as context' }, selectionBox, ' Include selection'),
    h(
      'label',
      { class: 'check', title: 'Run in a git worktree of its own, on its own branch: your tree is not touched until you apply its changes, and other runs may work meanwhile' },
      worktreeBox,
      ' Run in a worktree',
    ),
    steerButton,
    sendButton,
  ),
);
composer.addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
app.append(toolbar, trustBar, worktreesBox, sessionsBox, readOnlyBar, h('main', { class: 'main' }, earlier, log, empty), h('div', { class: 'footer' }, statusLine, composer), announcer);

prompt.value = typeof saved.draft === 'string' ? saved.draft : '';
prompt.addEventListener('keydown', (event) => {
  if (pickerKey(event) || attachKey(event)) {
    return;
  }
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send(event.ctrlKey || event.metaKey ? 'steer' : 'queue');
  }
});
// A prompt being typed is a sign of a run: the extension tells the server to get ready.
let promptWasEmpty = prompt.value === '';
prompt.addEventListener('input', () => {
  saveState();
  if (promptWasEmpty && prompt.value !== '') {
    post({ type: 'typing' });
  }
  promptWasEmpty = prompt.value === '';
  updatePicker();
  updateAttachPicker();
});
// The caret moved without typing (a click, Home, arrows outside the picker).
prompt.addEventListener('click', () => {
  updatePicker();
  updateAttachPicker();
});
prompt.addEventListener('keyup', (event) => {
  if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) {
    updatePicker();
    updateAttachPicker();
  }
});
prompt.addEventListener('blur', () => {
  closePicker();
  closeAttachPicker();
});
// An image pasted into the prompt box, or dropped on the composer, is attached.
prompt.addEventListener('paste', (event) => {
  const images = imageFiles(event.clipboardData);
  if (images.length) {
    event.preventDefault();
    void attachImages(images);
  }
});
composer.addEventListener('dragover', (event) => {
  if (event.dataTransfer?.types.includes('Files')) {
    event.preventDefault();
  }
});
composer.addEventListener('drop', (event) => {
  const images = imageFiles(event.dataTransfer);
  if (images.length || event.dataTransfer?.files.length) {
    event.preventDefault();
    void attachImages(event.dataTransfer ? [...event.dataTransfer.files] : []);
  }
});
for (const el of [agentSelect, confirmSelect, selectionBox, worktreeBox]) {
  el.addEventListener('change', () => {
    options = {
      agent: agentSelect.value,
      confirmMode: confirmSelect.value as PanelOptions['confirmMode'],
      includeSelection: selectionBox.checked,
      worktree: worktreeBox.checked,
    };
    post({ type: 'options', options });
    render();
  });
}

// Links in the model's text open through the extension, never in the webview.
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('a') : null;
  if (target) {
    event.preventDefault();
    const href = target.getAttribute('data-href');
    if (href) {
      post({ type: 'openLink', href });
    }
  }
});

function saveState(): void {
  const state: ViewState = { draft: prompt.value, shown, open: [...openCards] };
  vscode.setState(state);
}

function announce(text: string): void {
  announcer.textContent = text;
}

function send(mode: 'queue' | 'steer' = 'queue'): void {
  const text = prompt.value;
  if (text.trim() === '') {
    return;
  }
  rejectedNote.hidden = true;
  // A refused paste or drop is about the prompt being written: sent, it is old news.
  attachError.hidden = true;
  if (options.worktree) {
    // A session of its own, beside whatever runs in the user's tree.
    if (mode !== 'queue') {
      return;
    }
    post({ type: 'run', prompt: text, options, attachments });
    attachments = [];
    renderChips();
    worktreesOpen = true;
  } else if (conversation.readOnly) {
    return;
  } else if (conversation.runId) {
    // The box is cleared now; a refusal (messageRejected) puts the text back.
    post({ type: 'message', text, mode });
  } else if (mode === 'queue') {
    post({ type: 'run', prompt: text, options, attachments });
    // Sent with this run; a message to a run in flight cannot carry them, so they wait.
    attachments = [];
    renderChips();
  } else {
    return;
  }
  prompt.value = '';
  promptWasEmpty = true;
  closePicker();
  closeAttachPicker();
  updateHint();
  saveState();
}

// ---- the attachments: the `@` picker, pasted and dropped images, the chips ------------------

let attachments: Attachment[] = [];
let attachOpen = false;
/** Escape closed the picker: it stays closed until the caret leaves this `@` word. */
let attachDismissedAt: number | undefined;
let attachRows: AttachOption[] = [];
let activeAttach = 0;
let attachSeq = 0;
let attachAnswered = 0;
let attachCandidates: AttachCandidate[] = [];
let attachNotes: string[] = [];
let attachFailure: string | undefined;

function closeAttachPicker(): void {
  attachOpen = false;
  attachPicker.hidden = true;
}

/** Open, requery or close the `@` picker for the word under the caret. */
function updateAttachPicker(): void {
  const typed = attachQuery(prompt.value, prompt.selectionStart ?? prompt.value.length);
  if (!typed) {
    attachDismissedAt = undefined;
    closeAttachPicker();
    return;
  }
  if (attachDismissedAt === typed.start) {
    return;
  }
  closePicker();
  if (!attachOpen) {
    attachOpen = true;
    activeAttach = 0;
  }
  // The server searches (a 50,000-file workspace never crosses into the webview); only the
  // latest question's answer is shown.
  attachSeq += 1;
  post({ type: 'attachCandidates', query: typed.query.replace(/^#/, ''), seq: attachSeq });
  renderAttachPicker(typed.query);
}

function showAttachCandidates(message: Extract<ToWebview, { type: 'attachCandidates' }>): void {
  if (message.seq < attachSeq || !attachOpen) {
    return;
  }
  attachAnswered = message.seq;
  attachCandidates = message.items;
  attachNotes = message.notes;
  attachFailure = message.error;
  const typed = attachQuery(prompt.value, prompt.selectionStart ?? prompt.value.length);
  if (typed) {
    renderAttachPicker(typed.query);
  }
}

function renderAttachPicker(query: string): void {
  const before = attachRows[activeAttach]?.key;
  attachRows = attachOptions(query, attachAnswered === attachSeq ? attachCandidates : []);
  const kept = attachRows.findIndex((row) => row.key === before);
  activeAttach = kept >= 0 ? kept : Math.min(activeAttach, Math.max(attachRows.length - 1, 0));
  attachList.replaceChildren();
  attachRows.forEach((row, i) => {
    const option = h(
      'li',
      {
        id: `attach-option-${i}`,
        class: `command-option attach-option${i === activeAttach ? ' active' : ''}`,
        role: 'option',
        'aria-selected': String(i === activeAttach),
        'data-attach': row.key,
        title: `${row.label}\n${row.detail}`,
      },
      h('div', { class: 'command-line' }, h('span', { class: 'command-name' }, row.label), h('span', { class: 'command-source' }, row.detail)),
    );
    option.addEventListener('mousedown', (event) => event.preventDefault());
    option.addEventListener('click', () => chooseAttachment(i));
    attachList.append(option);
  });
  attachList.hidden = attachRows.length === 0;
  const searching = attachAnswered !== attachSeq;
  attachNote.textContent = attachFailure
    ? `Could not search the workspace: ${attachFailure}`
    : [searching ? 'Searching…' : attachRows.length === 0 ? `Nothing matches @${query}` : '', ...attachNotes].filter(Boolean).join(' · ');
  attachNote.hidden = attachNote.textContent === '';
  attachPicker.hidden = false;
  const active = attachRows.length ? `attach-option-${activeAttach}` : undefined;
  if (active) {
    prompt.setAttribute('aria-activedescendant', active);
    document.getElementById(active)?.scrollIntoView({ block: 'nearest' });
  }
}

function attachKey(event: KeyboardEvent): boolean {
  if (!attachOpen || event.isComposing) {
    return false;
  }
  switch (event.key) {
    case 'ArrowDown':
    case 'ArrowUp': {
      if (attachRows.length === 0) {
        return false;
      }
      event.preventDefault();
      activeAttach = moveActive(activeAttach, event.key === 'ArrowDown' ? 1 : -1, attachRows.length);
      const typed = attachQuery(prompt.value, prompt.selectionStart ?? prompt.value.length);
      renderAttachPicker(typed?.query ?? '');
      return true;
    }
    case 'Enter':
    case 'Tab':
      if (event.shiftKey || attachRows.length === 0) {
        return false;
      }
      event.preventDefault();
      chooseAttachment(activeAttach);
      return true;
    case 'Escape':
      event.preventDefault();
      event.stopPropagation();
      attachDismissedAt = attachQuery(prompt.value, prompt.selectionStart ?? prompt.value.length)?.start;
      closeAttachPicker();
      return true;
    default:
      return false;
  }
}

function chooseAttachment(index: number): void {
  const row = attachRows[index];
  const typed = attachQuery(prompt.value, prompt.selectionStart ?? prompt.value.length);
  if (!row || !typed) {
    return;
  }
  const next = removeQuery(prompt.value, typed.start, prompt.selectionStart ?? prompt.value.length);
  prompt.value = next.text;
  prompt.setSelectionRange(next.caret, next.caret);
  prompt.focus();
  closeAttachPicker();
  addChip(row.attachment);
  saveState();
}

function addChip(attachment: Attachment): void {
  attachments = addAttachment(attachments, attachment);
  attachError.hidden = true;
  renderChips();
  announce(`Attached ${chipLabel(attachment)}.`);
}

function renderChips(): void {
  chips.replaceChildren(
    ...attachments.map((attachment, i) => {
      const label = chipLabel(attachment);
      const remove = button('×', () => {
        attachments = removeAttachment(attachments, i);
        renderChips();
        announce(`Removed ${label}.`);
        prompt.focus();
      }, { class: 'chip-remove', title: `Remove ${label}`, 'aria-label': `Remove ${label}` });
      return h('span', { class: `chip chip-${attachment.kind}`, role: 'listitem', 'data-kind': attachment.kind, title: label }, h('span', { class: 'chip-label' }, label), remove);
    }),
  );
  chips.hidden = attachments.length === 0;
}

function imageFiles(data: DataTransfer | null): File[] {
  return data ? [...data.files].filter((file) => file.type.startsWith('image/')) : [];
}

/** Each file as an image attachment, or a message naming why it cannot be one. */
async function attachImages(files: File[]): Promise<void> {
  const refused: string[] = [];
  for (const file of files) {
    const checked = imageAttachment(file.name, file.type, file.size, file.size <= 5 * 1024 * 1024 && file.type.startsWith('image/') ? await base64Of(file) : '');
    if ('error' in checked) {
      refused.push(checked.error);
    } else {
      addChip(checked);
    }
  }
  attachError.textContent = refused.join('\n');
  attachError.hidden = refused.length === 0;
}

function base64Of(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}

// ---- the command picker (`/` at the start of the prompt) ------------------------------------

let commands: CommandInfo[] = [];
let commandProblems: string[] = [];
let commandsError: string | undefined;
let commandsLoaded = false;
let pickerOpen = false;
/** Escape closed the picker: it stays closed until the prompt no longer starts a command. */
let pickerDismissed = false;
let shownCommands: CommandInfo[] = [];
let activeCommand = 0;

function closePicker(): void {
  pickerOpen = false;
  picker.hidden = true;
  prompt.removeAttribute('aria-activedescendant');
  prompt.setAttribute('aria-expanded', 'false');
}

/** Open, filter or close the picker for what the prompt holds before the caret. */
function updatePicker(): void {
  const query = commandQuery(prompt.value, prompt.selectionStart ?? prompt.value.length);
  updateHint();
  if (query === undefined) {
    pickerDismissed = false;
    closePicker();
    return;
  }
  if (pickerDismissed) {
    return;
  }
  if (!pickerOpen) {
    pickerOpen = true;
    // Each opening starts on the first row, not on the command chosen last time.
    shownCommands = [];
    activeCommand = 0;
    // Asked at each opening: a prompt file written since the last one is listed.
    post({ type: 'listCommands' });
  }
  refilter(query);
}

/** The rows for `query`; the active row stays on its command while that is still listed. */
function refilter(query: string): void {
  const before = shownCommands[activeCommand]?.name;
  shownCommands = filterCommands(commands, query);
  const kept = shownCommands.findIndex((c) => c.name === before);
  activeCommand = kept >= 0 ? kept : 0;
  renderPicker(query);
}

function renderPicker(query: string): void {
  commandList.replaceChildren();
  shownCommands.forEach((command, i) => {
    const option = h(
      'li',
      {
        id: `command-option-${i}`,
        class: `command-option${i === activeCommand ? ' active' : ''}`,
        role: 'option',
        'aria-selected': String(i === activeCommand),
        'data-command': command.name,
        title: [`/${command.name}${command.hint ? ` ${command.hint}` : ''}`, command.description, command.path].filter(Boolean).join('\n'),
      },
      h(
        'div',
        { class: 'command-line' },
        h('span', { class: 'command-name' }, `/${command.name}`),
        command.hint ? h('span', { class: 'command-args' }, command.hint) : undefined,
        h('span', { class: 'command-source' }, sourceLabel(command)),
      ),
      h('div', { class: 'command-description' }, command.description),
    );
    // Keep the focus (and the caret) in the prompt box.
    option.addEventListener('mousedown', (event) => event.preventDefault());
    option.addEventListener('click', () => chooseCommand(i));
    commandList.append(option);
  });
  commandList.hidden = shownCommands.length === 0;
  if (commandsError) {
    commandNote.textContent = `Could not list the commands: ${commandsError}`;
  } else if (!commandsLoaded) {
    commandNote.textContent = 'Loading commands…';
  } else if (shownCommands.length === 0) {
    commandNote.textContent = `No command matches /${query}`;
  } else {
    commandNote.textContent = '';
  }
  commandNote.hidden = commandNote.textContent === '';
  commandProblemsBox.replaceChildren(...commandProblems.map((problem) => h('div', { class: 'command-problem' }, `⚠ ${problem}`)));
  commandProblemsBox.hidden = commandProblems.length === 0;
  picker.hidden = false;
  prompt.setAttribute('aria-expanded', 'true');
  const active = shownCommands.length ? `command-option-${activeCommand}` : undefined;
  if (active) {
    prompt.setAttribute('aria-activedescendant', active);
    document.getElementById(active)?.scrollIntoView({ block: 'nearest' });
    const command = shownCommands[activeCommand];
    announce(`/${command.name}${command.hint ? ` ${command.hint}` : ''}: ${command.description} (${activeCommand + 1} of ${shownCommands.length})`);
  } else {
    prompt.removeAttribute('aria-activedescendant');
  }
}

/** The picker's keys; true when the key was the picker's. */
function pickerKey(event: KeyboardEvent): boolean {
  if (!pickerOpen || event.isComposing) {
    return false;
  }
  const query = commandQuery(prompt.value, prompt.selectionStart ?? prompt.value.length) ?? '';
  switch (event.key) {
    case 'ArrowDown':
    case 'ArrowUp':
      if (shownCommands.length === 0) {
        return false;
      }
      event.preventDefault();
      activeCommand = moveActive(activeCommand, event.key === 'ArrowDown' ? 1 : -1, shownCommands.length);
      renderPicker(query);
      return true;
    case 'Enter':
    case 'Tab':
      if (event.shiftKey || shownCommands.length === 0) {
        return false;
      }
      event.preventDefault();
      chooseCommand(activeCommand);
      return true;
    case 'Escape':
      event.preventDefault();
      event.stopPropagation();
      pickerDismissed = true;
      closePicker();
      return true;
    default:
      return false;
  }
}

function chooseCommand(index: number): void {
  const command = shownCommands[index];
  if (!command) {
    return;
  }
  const next = insertCommand(prompt.value, command.name);
  prompt.value = next.text;
  prompt.setSelectionRange(next.caret, next.caret);
  prompt.focus();
  closePicker();
  updateHint();
  saveState();
  announce(`/${command.name} inserted${command.hint ? `; type ${command.hint}` : ''}.`);
}

/** Under the prompt: what the command it starts with takes, and what it does. */
function updateHint(): void {
  const command = pickerOpen ? undefined : typedCommand(prompt.value, commands);
  if (!command) {
    hintLine.hidden = true;
    hintLine.replaceChildren();
    return;
  }
  hintLine.replaceChildren(
    h('span', { class: 'command-name' }, `/${command.name}`),
    ...(command.hint ? [h('span', { class: 'command-args' }, command.hint)] : []),
    ...(command.description ? [h('span', { class: 'command-description' }, `— ${command.description}`)] : []),
  );
  hintLine.hidden = false;
}

function showCommands(message: Extract<ToWebview, { type: 'commands' }>): void {
  commands = message.commands;
  commandProblems = message.problems;
  commandsError = message.error;
  commandsLoaded = true;
  const query = commandQuery(prompt.value, prompt.selectionStart ?? prompt.value.length);
  if (pickerOpen && query !== undefined) {
    refilter(query);
  }
  updateHint();
}

// ---- sessions ----------------------------------------------------------------------------

function toggleSessions(force?: boolean): void {
  const open = force ?? sessionsBox.hidden;
  sessionsBox.hidden = !open;
  sessionsButton.setAttribute('aria-expanded', String(open));
  if (open) {
    sessionsBox.replaceChildren(h('p', { class: 'muted' }, 'Loading sessions…'));
    post({ type: 'listSessions' });
  }
}

function when(updated: SessionSummary['updated']): string {
  if (updated === undefined) {
    return '';
  }
  const date = typeof updated === 'number' ? new Date(updated * 1000) : new Date(updated);
  return Number.isNaN(date.getTime()) ? String(updated) : date.toLocaleString();
}

function showSessions(sessions: SessionSummary[], error?: string): void {
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
    const meta = [s.status, s.runs !== undefined ? `${s.runs} run${s.runs === 1 ? '' : 's'}` : undefined, when(s.updated)].filter(Boolean).join(' · ');
    const open = button('', () => {
      toggleSessions(false);
      post({ type: 'openSession', sessionId: s.sessionId });
    }, { class: 'session', 'data-session': s.sessionId, 'aria-label': `Open session: ${title}. ${meta}` });
    open.append(h('span', { class: 'session-title' }, title), h('span', { class: 'session-meta' }, meta));
    list.append(h('li', {}, open));
  }
  sessionsBox.replaceChildren(list);
  (list.querySelector('button') as HTMLButtonElement | null)?.focus();
}

// ---- worktree sessions ---------------------------------------------------------------------

function toggleWorktrees(force?: boolean): void {
  worktreesOpen = force ?? !worktreesOpen;
  if (worktreesOpen) {
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

function renderWorktrees(): void {
  const cards = worktreeCards(worktrees);
  const open = worktreesOpen || cards.some((c) => c.kind === 'running');
  worktreesBox.hidden = !open;
  worktreesButton.setAttribute('aria-expanded', String(open));
  if (!open) {
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
  const hadFocus = worktreesBox.contains(document.activeElement) ? (document.activeElement as HTMLElement).className : undefined;
  worktreesBox.replaceChildren(head, ...body);
  if (hadFocus) {
    (worktreesBox.querySelector(`button[class="${hadFocus}"]`) as HTMLElement | null)?.focus();
  }
}

// ---- items -------------------------------------------------------------------------------

const TOOL_ICONS: Record<string, string> = { running: '◌', done: '✓', failed: '✗', interrupted: '⚠' };
const PLAN_ICONS: Record<string, string> = { done: '☑', in_progress: '◐', pending: '☐' };
const PLAN_WORDS: Record<string, string> = { done: 'done', in_progress: 'in progress', pending: 'to do' };

function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

function renderItem(item: Item): HTMLElement {
  switch (item.kind) {
    case 'user':
      return h(
        'div',
        { class: 'msg user', 'data-kind': 'user' },
        h('div', { class: 'who' }, item.agent ? `You → ${item.agent}` : 'You'),
        h('div', { class: 'user-text' }, item.text),
        instructionsLine(item.instructions),
      );
    case 'message':
      return h(
        'div',
        { class: `msg user mid-run ${item.state}`, 'data-kind': 'message', 'data-state': item.state, 'data-message': item.messageId },
        h('div', { class: 'who' }, item.mode === 'steer' ? 'You (steer)' : 'You (during the run)'),
        h('div', { class: 'user-text' }, item.text),
        h('div', { class: 'message-state', 'aria-label': `Message ${MESSAGE_STATE_WORDS[item.state]}` }, MESSAGE_STATE_WORDS[item.state]),
      );
    case 'compaction':
      return h('div', { class: 'run-end compaction', 'data-kind': 'compaction', role: 'note' }, compactionText(item.compacted));
    case 'notice':
      return h(
        'div',
        { class: `notice ${item.level}`, 'data-kind': 'notice', 'data-level': item.level, role: item.level === 'error' ? 'alert' : 'note' },
        h('span', { class: 'icon', 'aria-hidden': 'true' }, item.level === 'info' ? 'ℹ' : '⚠'),
        h('span', { class: 'notice-text' }, item.message),
      );
    case 'text': {
      const body = h('div', { class: 'markdown' });
      // Safe: the Markdown renderer escapes every tag of the model's text (html: false) and
      // keeps only http(s)/mailto/relative links; the CSP would block any script anyway.
      if (item.streaming) {
        const stream = { inc: new IncrementalMarkdown(), stable: h('div', { class: 'md-stable' }), tail: h('div', { class: 'md-tail' }) };
        const out = stream.inc.update(item.text);
        stream.stable.innerHTML = out.appended;
        stream.tail.innerHTML = out.tail;
        body.append(stream.stable, stream.tail);
        streams.set(item.id, stream);
      } else {
        streams.delete(item.id);
        body.innerHTML = renderMarkdown(item.text);
      }
      return h('div', { class: `msg assistant${item.streaming ? ' streaming' : ''}`, 'data-kind': 'text', 'aria-busy': String(item.streaming) }, body);
    }
    case 'tool': {
      const details = h('details', { class: `tool ${item.state}`, 'data-kind': 'tool', 'data-tool': item.tool, 'data-state': item.state });
      details.open = openCards.has(item.id);
      details.addEventListener('toggle', () => {
        if (details.open) {
          openCards.add(item.id);
        } else {
          openCards.delete(item.id);
        }
        saveState();
      });
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
      if (links.length === 0) {
        return details;
      }
      return h('div', { class: 'tool-wrap' }, details, ...links);
    }
    case 'approval': {
      const card = h('div', { class: 'card approval', role: 'group', 'aria-label': 'Approval needed', 'data-kind': 'approval' });
      card.append(h('div', { class: 'card-title' }, 'Approval needed'), h('pre', { class: 'approval-text', tabindex: '0' }, item.message));
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
    case 'ask': {
      const card = h('div', { class: 'card ask', role: 'group', 'aria-label': 'The agent asks', 'data-kind': 'ask' });
      card.append(h('div', { class: 'card-title' }, 'The agent asks'), h('div', { class: 'question' }, item.question));
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
    case 'plan': {
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
    case 'review': {
      const details = h('details', { class: 'review-note', 'data-kind': 'review', 'data-run': item.runId });
      details.open = openCards.has(item.id);
      details.addEventListener('toggle', () => {
        if (details.open) {
          openCards.add(item.id);
        } else {
          openCards.delete(item.id);
        }
        saveState();
      });
      const where = item.otherSession ? ' (in another conversation)' : '';
      details.append(
        h('summary', {}, h('span', { class: 'icon', 'aria-hidden': 'true' }, '◆'), h('span', {}, `Told the agent your review${where}: ${item.summary}`)),
        h('div', { class: 'muted' }, 'What the agent was given, word for word:'),
        h('pre', { class: 'review-text', tabindex: '0' }, item.note),
      );
      return details;
    }
    case 'end': {
      const words: Record<string, string> = { success: '✓ Done', partial: '⚠ Partial', failed: '✗ Failed', cancelled: '⊘ Stopped' };
      const parts = [words[item.status] ?? item.status];
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
    case 'restore': {
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
  }
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
  if (!(conversation.undoable ?? []).includes(item.runId)) {
    return [];
  }
  const offer = undoOffer(conversation.undoPreviews?.[item.runId]);
  const whole = 'Put the files back as they were before this run (later runs of the session are undone too)';
  return [
    offer.detail ? h('div', { class: 'undo-detail', 'data-run': item.runId }, offer.detail) : undefined,
    offer.label ? undoButton(item, offer.label, offer.detail ?? whole) : undefined,
  ];
}

/** The undo button of a run's end (or of an undo), when the run changed files. */
function undoButton(item: Item, label: string, title: string): HTMLButtonElement | undefined {
  if (!canUndo(conversation, item)) {
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

// ---- rendering ---------------------------------------------------------------------------

function nearBottom(): boolean {
  const el = document.scrollingElement ?? document.documentElement;
  return el.scrollHeight - el.scrollTop - el.clientHeight < 80;
}

function render(): void {
  const c = conversation;
  const stick = nearBottom();
  const visible = c.items.slice(Math.max(0, c.items.length - shown));
  const hidden = c.items.length - visible.length;
  earlier.hidden = hidden === 0;
  earlier.textContent = `Show ${Math.min(hidden, WINDOW)} earlier item${hidden === 1 ? '' : 's'} (${hidden} hidden)`;
  empty.hidden = c.items.length > 0;

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
  statusLine.hidden = !running;
  statusText.textContent = [c.stepText, STATE_WORDS[c.state ?? ''] ?? c.state].filter(Boolean).join(' · ');
  log.setAttribute('aria-busy', String(running && c.state === 'model_running'));
  prompt.disabled = c.readOnly && !options.worktree;
  sendButton.disabled = c.readOnly && !options.worktree;
  sendButton.title = options.worktree
    ? 'Start a run in a new worktree (Enter)'
    : running
      ? 'Send to the running agent: it reads it before its next step (Enter)'
      : 'Send (Enter)';
  steerButton.hidden = !running || options.worktree;
  renderMeter(c);
  newButton.disabled = running;
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
  meter.hidden = !ctx;
  if (!ctx) {
    return;
  }
  const m = contextMeter(ctx.used, ctx.limit);
  meterFill.style.width = `${m.percent}%`;
  meter.dataset.level = m.level;
  meter.title = m.label;
  meter.setAttribute('aria-valuenow', String(m.percent));
  meter.setAttribute('aria-valuetext', m.label);
  meter.setAttribute('aria-label', m.label);
  meterText.textContent = m.short;
}

function applyOptions(): void {
  agentSelect.replaceChildren();
  const names = agents.length ? agents : [{ name: options.agent }];
  for (const agent of names) {
    const label = 'readOnly' in agent && agent.readOnly ? `${agent.name} (read-only)` : agent.name;
    const option = h('option', { value: agent.name }, label);
    if ('description' in agent && agent.description) {
      option.title = agent.description;
    }
    agentSelect.append(option);
  }
  if (!names.some((a) => a.name === options.agent)) {
    agentSelect.append(h('option', { value: options.agent }, options.agent));
  }
  agentSelect.value = options.agent;
  confirmSelect.value = options.confirmMode;
  selectionBox.checked = options.includeSelection;
  worktreeBox.checked = options.worktree;
}

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
  frame = 0;
  let said: string | undefined;
  for (const action of queue.splice(0)) {
    conversation = reduce(conversation, action);
    said = describe(action) ?? said;
  }
  render();
  if (said) {
    announce(said);
  }
  const focusable = log.querySelector('.card.approval:not(.answered) .choice, .card.ask:not(.answered) textarea');
  if (focusable && said && /approval|asks/.test(said)) {
    (focusable as HTMLElement).focus();
  }
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'snapshot':
      conversation = message.conversation;
      options = message.options;
      agents = message.agents;
      trustBar.hidden = !message.restricted;
      worktrees = message.worktrees;
      queue.length = 0;
      applyOptions();
      render();
      renderWorktrees();
      break;
    case 'worktrees':
      worktrees = message.worktrees;
      renderWorktrees();
      break;
    case 'action':
      queue.push(message.action);
      if (!frame) {
        frame = requestAnimationFrame(flush);
      }
      break;
    case 'agents':
      agents = message.agents;
      applyOptions();
      break;
    case 'sessions':
      showSessions(message.sessions, message.error);
      break;
    case 'commands':
      showCommands(message);
      break;
    case 'attachCandidates':
      showAttachCandidates(message);
      break;
    case 'focusPrompt':
      prompt.focus();
      break;
    case 'messageRejected':
      // Nothing lost: the text comes back, ahead of anything typed since.
      prompt.value = prompt.value.trim() === '' ? message.text : `${message.text}\n${prompt.value}`;
      promptWasEmpty = prompt.value === '';
      saveState();
      rejectedNote.textContent = `Not sent: ${message.reason}`;
      rejectedNote.hidden = false;
      break;
    case 'restricted':
      trustBar.hidden = !message.restricted;
      break;
  }
});

post({ type: 'ready' });
