/**
 * The `/` command picker of the panel's prompt box, without the DOM: when it opens, what it
 * lists for what was typed, what choosing a row leaves in the box, and the hint of the
 * command the prompt starts with (its keys are the listbox's, ./listbox.ts). Pure,
 * unit-tested; the webview draws it.
 */
import type { SlashCommandInfo } from '../protocol';

/** A command's name as the server accepts it after `/` (agent/prompts/slash_commands.py NAME). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * What is typed of a command's name: the text between a leading `/` and the caret while the
 * caret is still in that first word; undefined when the picker should not be open (no `/`
 * first, a space before the caret, `//` which the server reads as plain text).
 */
export function commandQuery(text: string, caret: number): string | undefined {
  const head = text.slice(0, caret);
  const match = /^\/([A-Za-z0-9_.-]*)$/.exec(head);
  if (!match) {
    return undefined;
  }
  // The caret in the middle of a word: the rest of it must still be part of a name.
  const after = /^[^\s]*/.exec(text.slice(caret))?.[0] ?? '';
  return /^[A-Za-z0-9_.-]*$/.test(after) ? match[1] : undefined;
}

/**
 * The commands that match `query`, best first: names that start with it, then names that
 * contain it, then those whose description does (each group in the server's name order).
 * Case does not matter; an empty query lists every command.
 */
export function filterCommands(commands: readonly SlashCommandInfo[], query: string): SlashCommandInfo[] {
  const q = query.toLowerCase();
  const groups: SlashCommandInfo[][] = [[], [], []];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    if (name.startsWith(q)) {
      groups[0].push(command);
    } else if (name.includes(q)) {
      groups[1].push(command);
    } else if (command.description.toLowerCase().includes(q)) {
      groups[2].push(command);
    }
  }
  return groups.flat();
}

/**
 * The prompt box after choosing `name`: the first word becomes `/name`, followed by one
 * space and whatever the user had typed after it; the caret goes after that space.
 */
export function insertCommand(text: string, name: string): { text: string; caret: number } {
  const rest = text.replace(/^\/\S*/, '').replace(/^[ \t]+/, '');
  const head = `/${name} `;
  return { text: head + rest, caret: head.length };
}

/** The command the prompt starts with (`/name` then a space or the end), if it is known. */
export function typedCommand(text: string, commands: readonly SlashCommandInfo[]): SlashCommandInfo | undefined {
  const match = /^\/(\S+)(\s|$)/.exec(text);
  if (!match || !NAME.test(match[1])) {
    return undefined;
  }
  return commands.find((command) => command.name === match[1]);
}

/** Where a command comes from, as the picker says it. */
export function sourceLabel(command: SlashCommandInfo): string {
  return command.source === 'built-in' ? 'built-in' : command.path || command.source;
}
