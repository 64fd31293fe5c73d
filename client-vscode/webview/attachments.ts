/**
 * The attachments of the next run: the `@` picker (src/panel/attachPicker.ts drawn in the
 * listbox picker; the server searches, so a 50,000-file workspace never crosses into the
 * webview), pasted and dropped images, and the chips above the prompt.
 */
import { addAttachment, attachOptions, attachQuery, chipLabel, imageAttachment, removeAttachment, removeQuery, type AttachOption } from '../src/panel/attachPicker';
import type { ToWebview } from '../src/panel/messages';
import type { Attachment } from '../src/protocol';
import { button, h } from './dom';
import { post } from './host';
import { announce, ui } from './layout';
import { ListboxPicker } from './listboxPicker';
import { saveState, state } from './state';

function caret(): number {
  return ui.prompt.selectionStart ?? ui.prompt.value.length;
}

/** The `@` word under the caret, if any. */
function typedAttach(): { query: string; start: number } | undefined {
  return attachQuery(ui.prompt.value, caret());
}

/** The picker: the prompt box's keydown gives it the keys first. */
export const attachPicker = new ListboxPicker<AttachOption>({
  input: ui.prompt,
  box: ui.attachBox,
  list: ui.attachList,
  idPrefix: 'attach-option',
  optionClass: 'command-option attach-option',
  keyOf: (row) => row.key,
  option: (row) => ({
    attrs: { 'data-attach': row.key, title: `${row.label}\n${row.detail}` },
    children: [h('div', { class: 'command-line' }, h('span', { class: 'command-name' }, row.label), h('span', { class: 'command-source' }, row.detail))],
  }),
  wordStart: () => typedAttach()?.start,
  choose: chooseAttachment,
});

/** Open, requery or close the `@` picker for the word under the caret. */
export function updateAttachPicker(): void {
  const typed = typedAttach();
  if (attachPicker.follow() === 'closed' || !typed) {
    return;
  }
  // Only the latest question's answer is shown.
  state.attach.asked += 1;
  post({ type: 'attachCandidates', query: typed.query.replace(/^#/, ''), seq: state.attach.asked });
  renderAttachPicker(typed.query);
}

/** The server's answer to an `attachCandidates` question. */
export function showAttachCandidates(message: Extract<ToWebview, { type: 'attachCandidates' }>): void {
  if (message.seq < state.attach.asked || !attachPicker.open) {
    return;
  }
  state.attach = { asked: state.attach.asked, answered: message.seq, candidates: message.items, notes: message.notes, failure: message.error };
  const typed = typedAttach();
  if (typed) {
    renderAttachPicker(typed.query);
  }
}

function renderAttachPicker(query: string): void {
  const asked = state.attach;
  const searching = asked.answered !== asked.asked;
  attachPicker.show(attachOptions(query, searching ? [] : asked.candidates));
  const note = ui.attachNote;
  note.textContent = asked.failure
    ? `Could not search the workspace: ${asked.failure}`
    : [searching ? 'Searching…' : attachPicker.rows.length === 0 ? `Nothing matches @${query}` : '', ...asked.notes].filter(Boolean).join(' · ');
  note.hidden = note.textContent === '';
}

function chooseAttachment(row: AttachOption): void {
  const typed = typedAttach();
  if (!typed) {
    return;
  }
  const prompt = ui.prompt;
  const next = removeQuery(prompt.value, typed.start, caret());
  prompt.value = next.text;
  prompt.setSelectionRange(next.caret, next.caret);
  prompt.focus();
  attachPicker.close();
  addChip(row.attachment);
  saveState();
}

function addChip(attachment: Attachment): void {
  state.attachments = addAttachment(state.attachments, attachment);
  ui.attachError.hidden = true;
  renderChips();
  announce(`Attached ${chipLabel(attachment)}.`);
}

export function renderChips(): void {
  ui.chips.replaceChildren(
    ...state.attachments.map((attachment, i) => {
      const label = chipLabel(attachment);
      const remove = button(
        '×',
        () => {
          state.attachments = removeAttachment(state.attachments, i);
          renderChips();
          announce(`Removed ${label}.`);
          ui.prompt.focus();
        },
        { class: 'chip-remove', title: `Remove ${label}`, 'aria-label': `Remove ${label}` },
      );
      return h('span', { class: `chip chip-${attachment.kind}`, role: 'listitem', 'data-kind': attachment.kind, title: label }, h('span', { class: 'chip-label' }, label), remove);
    }),
  );
  ui.chips.hidden = state.attachments.length === 0;
}

/** The chips, taken for a run that is sent with them (a message to a run in flight cannot carry them, so they wait). */
export function takeAttachments(): Attachment[] {
  const taken = state.attachments;
  state.attachments = [];
  renderChips();
  return taken;
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
  ui.attachError.textContent = refused.join('\n');
  ui.attachError.hidden = refused.length === 0;
}

function base64Of(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}

/** An image pasted into the prompt box, or dropped on the composer, is attached. */
export function setUpImageDrop(): void {
  ui.prompt.addEventListener('paste', (event) => {
    const images = imageFiles(event.clipboardData);
    if (images.length) {
      event.preventDefault();
      void attachImages(images);
    }
  });
  ui.composer.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files')) {
      event.preventDefault();
    }
  });
  ui.composer.addEventListener('drop', (event) => {
    const images = imageFiles(event.dataTransfer);
    if (images.length || event.dataTransfer?.files.length) {
      event.preventDefault();
      void attachImages(event.dataTransfer ? [...event.dataTransfer.files] : []);
    }
  });
}
