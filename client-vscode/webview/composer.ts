/**
 * The composer: the prompt box and its keys (the pickers' first), what Send and Steer do
 * during a run and between runs, and the run options under the box (the picker row: agent,
 * confirm mode, model; the checkboxes under it).
 */
import type { PanelOptions, ToWebview } from '../src/panel/messages';
import { attachPicker, setUpImageDrop, takeAttachments, updateAttachPicker } from './attachments';
import { commandPicker, updateCommandPicker, updateHint } from './commandPicker';
import { render } from './conversation';
import { h } from './dom';
import { post } from './host';
import { ui } from './layout';
import { savedDraft, saveState, state } from './state';

/** The pickers follow the caret: the `/` word and an `@` word never overlap, so one at most opens. */
function updatePickers(): void {
  updateCommandPicker();
  updateAttachPicker();
}

function closePickers(): void {
  commandPicker.close();
  attachPicker.close();
}

function send(mode: 'queue' | 'steer' = 'queue'): void {
  const { prompt } = ui;
  const text = prompt.value;
  if (text.trim() === '') {
    return;
  }
  ui.rejectedNote.hidden = true;
  // A refused paste or drop is about the prompt being written: sent, it is old news.
  ui.attachError.hidden = true;
  const { conversation, options } = state;
  if (options.worktree) {
    // A session of its own, beside whatever runs in the user's tree.
    if (mode !== 'queue') {
      return;
    }
    post({ type: 'run', prompt: text, options, attachments: takeAttachments() });
    state.worktreesOpen = true;
  } else if (conversation.readOnly) {
    return;
  } else if (conversation.runId) {
    // The box is cleared now; a refusal (messageRejected) puts the text back.
    post({ type: 'message', text, mode });
  } else if (mode === 'queue') {
    // Sent with this run; a message to a run in flight cannot carry them, so they wait.
    post({ type: 'run', prompt: text, options, attachments: takeAttachments() });
  } else {
    return;
  }
  prompt.value = '';
  state.promptWasEmpty = true;
  closePickers();
  updateHint();
  saveState();
}

/** agent/message was refused: nothing lost, the text comes back ahead of anything typed since. */
export function messageRejected(message: Extract<ToWebview, { type: 'messageRejected' }>): void {
  const { prompt } = ui;
  prompt.value = prompt.value.trim() === '' ? message.text : `${message.text}\n${prompt.value}`;
  state.promptWasEmpty = prompt.value === '';
  saveState();
  ui.rejectedNote.textContent = `Not sent: ${message.reason}`;
  ui.rejectedNote.hidden = false;
}

/** Measures the text a picker shows. */
const measure = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;

/**
 * Size a picker of the row to the text it shows (a native select is as wide as its longest
 * option): the row then holds the agent, the confirm mode and the model on one line in a
 * narrow side bar, each shrinking (its text ellipsized) only when the row is too narrow.
 */
export function fitPicker(select: HTMLSelectElement): void {
  const text = select.selectedOptions[0]?.textContent ?? '';
  const style = getComputedStyle(select);
  measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const width = measure.measureText(text).width;
  // The padding (the chevron's room) and the border, beside the text (panel.css); unmeasured
  // (no font yet): as the browser sizes it.
  select.style.width = width > 0 ? `${Math.ceil(width) + 23}px` : '';
}
/** The run options as the extension last said them (its snapshot, a new list of agents). */
export function applyOptions(): void {
  const { agents, options } = state;
  const { agentSelect } = ui;
  agentSelect.replaceChildren();
  const names = agents.length ? agents : [{ name: options.agent }];
  for (const agent of names) {
    const label = 'readOnly' in agent && agent.readOnly ? `${agent.name} (read-only)` : agent.name;
    const option = h('option', { value: agent.name }, label);
    // Where a custom agent is defined (its file, the config) helps tell agents apart.
    const source = 'source' in agent && agent.source !== 'built-in' ? ` (${agent.source})` : '';
    if ('description' in agent && (agent.description || source)) {
      option.title = `${agent.description}${source}`;
    }
    agentSelect.append(option);
  }
  if (!names.some((a) => a.name === options.agent)) {
    agentSelect.append(h('option', { value: options.agent }, options.agent));
  }
  agentSelect.value = options.agent;
  ui.confirmSelect.value = options.confirmMode;
  fitPicker(agentSelect);
  fitPicker(ui.confirmSelect);
  ui.selectionBox.checked = options.includeSelection;
  ui.worktreeBox.checked = options.worktree;
}

export function setUpComposer(): void {
  const { prompt, composer } = ui;
  ui.sendButton.addEventListener('click', () => send());
  ui.steerButton.addEventListener('click', () => send('steer'));
  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    send();
  });
  prompt.value = savedDraft;
  state.promptWasEmpty = prompt.value === '';
  prompt.addEventListener('keydown', (event) => {
    if (commandPicker.handleKey(event) || attachPicker.handleKey(event)) {
      state.keyTakenByPicker = event.key;
      return;
    }
    state.keyTakenByPicker = undefined;
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(event.ctrlKey || event.metaKey ? 'steer' : 'queue');
    }
  });
  // A prompt being typed is a sign of a run: the extension tells the server to get ready.
  prompt.addEventListener('input', () => {
    saveState();
    if (state.promptWasEmpty && prompt.value !== '') {
      post({ type: 'typing' });
    }
    state.promptWasEmpty = prompt.value === '';
    updatePickers();
  });
  // The caret moved without typing (a click, Home, arrows outside the picker).
  prompt.addEventListener('click', () => updatePickers());
  prompt.addEventListener('keyup', (event) => {
    // Home and End taken by a picker moved its active row, not the caret.
    const taken = state.keyTakenByPicker === event.key;
    state.keyTakenByPicker = undefined;
    if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key) && !taken) {
      updatePickers();
    }
  });
  prompt.addEventListener('blur', () => closePickers());
  setUpImageDrop();
  for (const el of [ui.agentSelect, ui.confirmSelect, ui.modelSelect, ui.selectionBox, ui.worktreeBox]) {
    el.addEventListener('change', () => {
      // The model shown may be a fallback for a remembered one that is gone: only a choice
      // in the model picker itself replaces the remembered model.
      const model = el === ui.modelSelect ? ui.modelSelect.value : state.options.model;
      state.options = {
        agent: ui.agentSelect.value,
        confirmMode: ui.confirmSelect.value as PanelOptions['confirmMode'],
        includeSelection: ui.selectionBox.checked,
        worktree: ui.worktreeBox.checked,
        ...(model ? { model } : {}),
      };
      if (el instanceof HTMLSelectElement) {
        fitPicker(el);
      }
      post({ type: 'options', options: state.options });
      render();
    });
  }
}
