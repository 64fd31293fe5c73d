/**
 * The panel's static layout: every element that lives as long as the webview, built once
 * and put in #app. Nothing here reacts to anything but the buttons that only tell the
 * extension; the parts that own an element (the composer, the pickers, the sessions...)
 * add their listeners to it when main.ts sets them up. New session, Sessions, Worktrees and
 * the log are the view's title-bar actions (package.json `view/title`), not buttons here:
 * the composer keeps one compact row of pickers (agent, confirm mode, model) and Send.
 */
import type { PanelOptions } from '../src/panel/messages';
import { MANAGE_TRUST_LABEL, RESTRICTED_NOTICE } from '../src/trust';
import { button, h } from './dom';
import { post } from './host';

// Short: the picker row is one line in a narrow side bar; the picker's title says more.
const CONFIRM_LABELS: Record<PanelOptions['confirmMode'], string> = {
  'confirm-sensitive': 'Ask if sensitive',
  'confirm-all': 'Ask always',
  yolo: 'Never ask',
};

/** A button whose click the part that owns it handles. */
function bare(label: string, attrs: Record<string, string>): HTMLButtonElement {
  return h('button', { type: 'button', ...attrs }, label);
}

function buildLayout() {
  const announcer = h('div', { class: 'sr-only', 'aria-live': 'polite', role: 'status' });
  const meterFill = h('div', { class: 'meter-fill' });
  const meterText = h('span', { class: 'meter-text' });
  const meter = h(
    'div',
    { id: 'context-meter', class: 'context-meter', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '100', hidden: '' },
    h('div', { class: 'meter-bar', 'aria-hidden': 'true' }, meterFill),
    meterText,
  );
  // The context meter's strip at the top, shown with the meter only.
  const contextBar = h('div', { class: 'context-bar', hidden: '' }, meter);
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
  const earlier = bare('', { class: 'earlier' });
  const log = h('div', { class: 'log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite', 'aria-relevant': 'additions text' });
  const empty = h('div', { class: 'empty' }, 'Ask the agent to do something in this workspace. Enter sends, Shift+Enter adds a line.');
  const statusText = h('span', { class: 'status-text' });
  const stopButton = button('Stop', () => post({ type: 'cancel' }), { class: 'stop', title: 'Stop the run (it ends at the next safe point)' });
  const statusLine = h('div', { class: 'status-line', hidden: '' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), statusText, stopButton);

  const agentSelect = h('select', { id: 'agent', 'aria-label': 'Agent' });
  const confirmSelect = h('select', { id: 'confirm', 'aria-label': 'Confirm mode', title: 'Confirm mode: when the agent asks before it acts' });
  for (const [value, label] of Object.entries(CONFIRM_LABELS)) {
    confirmSelect.append(h('option', { value }, label));
  }
  const modelSelect = h('select', { id: 'model', 'aria-label': 'Model', 'aria-describedby': 'model-detail' });
  // What is known of the chosen model, for screen readers (sighted users get the title).
  const modelDetail = h('span', { id: 'model-detail', class: 'sr-only' });
  const modelNotes = h('div', { id: 'model-notes', class: 'model-notes', hidden: '' });
  const selectionBox = h('input', { type: 'checkbox', id: 'selection' });
  const worktreeBox = h('input', { type: 'checkbox', id: 'worktree' });
  // Drawn by folderPicker.ts, only when the workspace has several folders.
  const folderSelect = h('select', { id: 'folder', 'aria-label': 'Folder the run works in' });
  const folderField = h('label', { class: 'field folder-field', hidden: '' }, h('span', { class: 'folder-label' }, 'Folder'), folderSelect);
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
  const commandProblems = h('div', { class: 'command-problems' });
  const commandBox = h('div', { id: 'command-picker', class: 'command-picker', hidden: '' }, commandList, commandNote, commandProblems);
  const hintLine = h('div', { id: 'command-hint', class: 'command-hint', hidden: '' });
  const attachList = h('ul', { id: 'attach-list', class: 'command-list', role: 'listbox', 'aria-label': 'Attachments to choose from' });
  const attachNote = h('div', { class: 'command-note attach-note', role: 'status' });
  const attachBox = h('div', { id: 'attach-picker', class: 'command-picker', hidden: '' }, attachList, attachNote);
  const chips = h('div', { id: 'attachments', class: 'attachments', hidden: '', role: 'list', 'aria-label': 'Attached' });
  const attachError = h('div', { class: 'attach-error', role: 'alert', hidden: '' });
  const sendButton = bare('Send', { class: 'primary send', title: 'Send (Enter)' });
  // Steer cuts the model call in flight; Send (queue) waits for it. Only offered during a run.
  const steerButton = bare('Steer', { class: 'steer', title: 'Steer: interrupt the model now with this message (Ctrl/Cmd+Enter)', hidden: '' });
  const rejectedNote = h('div', { class: 'message-rejected', role: 'alert', hidden: '' });
  const composer = h(
    'form',
    { class: 'composer', 'aria-label': 'New message' },
    chips,
    h('div', { class: 'prompt-wrap' }, commandBox, attachBox, prompt),
    attachError,
    hintLine,
    rejectedNote,
    h(
      'div',
      { class: 'picker-row', role: 'group', 'aria-label': 'Run options' },
      h('label', { class: 'field' }, h('span', { class: 'sr-only' }, 'Agent'), agentSelect),
      h('label', { class: 'field' }, h('span', { class: 'sr-only' }, 'Confirm mode'), confirmSelect),
      h('label', { class: 'field model-field' }, h('span', { class: 'sr-only' }, 'Model'), modelSelect),
      modelDetail,
      steerButton,
      sendButton,
    ),
    modelNotes,
    h(
      'div',
      { class: 'composer-row' },
      h('label', { class: 'check', title: 'Add the active editor’s selection as context' }, selectionBox, ' Include selection'),
      h(
        'label',
        { class: 'check', title: 'Run in a git worktree of its own, on its own branch: your tree is not touched until you apply its changes, and other runs may work meanwhile' },
        worktreeBox,
        ' Run in a worktree',
      ),
      folderField,
    ),
  );
  const app = document.getElementById('app') as HTMLElement;
  app.append(contextBar, trustBar, worktreesBox, sessionsBox, readOnlyBar, h('main', { class: 'main' }, earlier, log, empty), h('div', { class: 'footer' }, statusLine, composer), announcer);
  return {
    announcer,
    contextBar,
    meter,
    meterFill,
    meterText,
    worktreesBox,
    sessionsBox,
    readOnlyBar,
    trustBar,
    earlier,
    log,
    empty,
    statusText,
    statusLine,
    agentSelect,
    confirmSelect,
    modelSelect,
    modelDetail,
    modelNotes,
    selectionBox,
    worktreeBox,
    folderSelect,
    folderField,
    prompt,
    commandList,
    commandNote,
    commandProblems,
    commandBox,
    hintLine,
    attachList,
    attachNote,
    attachBox,
    chips,
    attachError,
    sendButton,
    steerButton,
    rejectedNote,
    composer,
  };
}

/** The panel's elements, by what they are. */
export type Layout = ReturnType<typeof buildLayout>;
export const ui: Layout = buildLayout();

/** Said to screen readers (a polite live region). */
export function announce(text: string): void {
  ui.announcer.textContent = text;
}
