/**
 * The command picker (`/` at the start of the prompt) and the hint under the prompt of the
 * command it starts with: src/panel/commandPicker.ts drawn in the listbox picker.
 */
import { commandQuery, filterCommands, insertCommand, sourceLabel, typedCommand } from '../src/panel/commandPicker';
import type { ToWebview } from '../src/panel/messages';
import type { SlashCommandInfo } from '../src/protocol';
import { h } from './dom';
import { post } from './host';
import { announce, ui } from './layout';
import { ListboxPicker } from './listboxPicker';
import { saveState, state } from './state';

/** What is typed of a command's name up to the caret; undefined: no picker. */
function typedQuery(): string | undefined {
  return commandQuery(ui.prompt.value, ui.prompt.selectionStart ?? ui.prompt.value.length);
}

function withHint(command: SlashCommandInfo): string {
  return `/${command.name}${command.hint ? ` ${command.hint}` : ''}`;
}

/** The picker: the prompt box's keydown gives it the keys first. */
export const commandPicker = new ListboxPicker<SlashCommandInfo>({
  input: ui.prompt,
  box: ui.commandBox,
  list: ui.commandList,
  idPrefix: 'command-option',
  optionClass: 'command-option',
  keyOf: (command) => command.name,
  option: (command) => ({
    attrs: { 'data-command': command.name, title: [withHint(command), command.description, command.path].filter(Boolean).join('\n') },
    children: [
      h(
        'div',
        { class: 'command-line' },
        h('span', { class: 'command-name' }, `/${command.name}`),
        command.hint ? h('span', { class: 'command-args' }, command.hint) : undefined,
        h('span', { class: 'command-source' }, sourceLabel(command)),
      ),
      h('div', { class: 'command-description' }, command.description),
    ],
  }),
  // A command's name is the prompt's first word.
  wordStart: () => (typedQuery() === undefined ? undefined : 0),
  choose: chooseCommand,
  shown: (command, index, count) => announce(`${withHint(command)}: ${command.description} (${index + 1} of ${count})`),
});

/** Open, filter or close the picker for what the prompt holds before the caret. */
export function updateCommandPicker(): void {
  const query = typedQuery();
  updateHint();
  const followed = commandPicker.follow();
  if (followed === 'closed' || query === undefined) {
    return;
  }
  if (followed === 'opened') {
    // Asked at each opening: a prompt file written since the last one is listed.
    post({ type: 'listCommands' });
  }
  refilter(query);
}

/** The rows for `query`, and what the picker says under them. */
function refilter(query: string): void {
  const commands = state.commands;
  commandPicker.show(filterCommands(commands.list, query));
  if (commands.error) {
    ui.commandNote.textContent = `Could not list the commands: ${commands.error}`;
  } else if (!commands.loaded) {
    ui.commandNote.textContent = 'Loading commands…';
  } else if (commandPicker.rows.length === 0) {
    ui.commandNote.textContent = `No command matches /${query}`;
  } else {
    ui.commandNote.textContent = '';
  }
  ui.commandNote.hidden = ui.commandNote.textContent === '';
  ui.commandProblems.replaceChildren(...commands.problems.map((problem) => h('div', { class: 'command-problem' }, `⚠ ${problem}`)));
  ui.commandProblems.hidden = commands.problems.length === 0;
}

function chooseCommand(command: SlashCommandInfo): void {
  const prompt = ui.prompt;
  const next = insertCommand(prompt.value, command.name);
  prompt.value = next.text;
  prompt.setSelectionRange(next.caret, next.caret);
  prompt.focus();
  commandPicker.close();
  updateHint();
  saveState();
  announce(`/${command.name} inserted${command.hint ? `; type ${command.hint}` : ''}.`);
}

/** Under the prompt: what the command it starts with takes, and what it does. */
export function updateHint(): void {
  const hintLine = ui.hintLine;
  const command = commandPicker.open ? undefined : typedCommand(ui.prompt.value, state.commands.list);
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

/** The answer to `listCommands`. */
export function showCommands(message: Extract<ToWebview, { type: 'commands' }>): void {
  state.commands = { list: message.commands, problems: message.problems, error: message.error, loaded: true };
  const query = typedQuery();
  if (commandPicker.open && query !== undefined) {
    refilter(query);
  }
  updateHint();
}
