/**
 * The model picker of the prompt box's row, drawn (src/panel/modelPicker.ts decides what it
 * lists and which model is chosen). A native select, as the agent and confirm-mode pickers
 * are: keyboard and screen readers work as in any form. Each option says what is known of
 * its model in its tooltip; a model without tool calling is listed but cannot be chosen; the
 * chosen model's details are the select's tooltip and its description for screen readers;
 * the server's problems are a quiet line under the row.
 */
import type { ModelOption } from '../src/panel/modelPicker';
import { fitPicker } from './composer';
import { h } from './dom';
import { ui } from './layout';
import { state } from './state';

function optionLabel(option: ModelOption): string {
  return option.usable ? option.label : `${option.label} (no tool calling)`;
}

export function renderModels(): void {
  const picker = state.models;
  const { modelSelect, modelDetail, modelNotes } = ui;
  modelSelect.replaceChildren();
  if (picker.options.length === 0) {
    // Nothing listed (yet): the server's own choice applies.
    modelSelect.append(h('option', { value: '' }, picker.loading ? 'Model…' : 'Default model'));
  }
  for (const option of picker.options) {
    const el = h('option', { value: option.id, 'data-model': option.id, title: [option.id, option.detail, option.current ? 'the default' : ''].filter(Boolean).join(' · ') }, optionLabel(option));
    if (!option.usable) {
      el.disabled = true;
    }
    modelSelect.append(el);
  }
  modelSelect.value = picker.selected;
  fitPicker(modelSelect);
  const chosen = picker.options.find((o) => o.id === picker.selected);
  const detail = chosen ? [chosen.id, chosen.detail].filter(Boolean).join(' · ') : picker.loading ? 'Listing the models…' : 'The server’s default model';
  modelSelect.title = `Model: ${detail}`;
  modelDetail.textContent = detail;
  modelNotes.replaceChildren(...picker.notes.map((note) => h('div', { class: 'model-note' }, note)));
  modelNotes.hidden = picker.notes.length === 0;
}
