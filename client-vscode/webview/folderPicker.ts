/**
 * The folder picker under the prompt box, drawn (src/folders.ts decides what it lists): shown
 * only when the workspace has several folders. "The active editor's folder" names the folder
 * it is now; while the conversation has a session, its folder only, and the picker is
 * disabled (New session picks again).
 */
import { h } from './dom';
import { post } from './host';
import { ui } from './layout';
import { state } from './state';

export function renderFolders(): void {
  const picker = state.folders;
  const { folderSelect, folderField } = ui;
  folderField.hidden = !picker.shown;
  folderSelect.replaceChildren(...picker.options.map((option) => h('option', { value: option.value, title: option.title }, option.label)));
  folderSelect.value = picker.selected;
  folderSelect.disabled = picker.locked;
  folderSelect.title = picker.title;
  folderField.title = picker.title;
}

export function setUpFolderPicker(): void {
  ui.folderSelect.addEventListener('change', () => post({ type: 'pickFolder', value: ui.folderSelect.value }));
}
