/**
 * Builds the prompt of "Agent: Run…": the user's text, plus the editor selection (with its
 * file path and lines) as context when there is one; and the file the run works in. Pure,
 * unit-tested.
 */
import * as path from 'path';

export interface SelectionContext {
  /** Path of the file, relative to the workspace folder when it is inside one. */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
  languageId?: string;
}

/** A Markdown fence longer than any run of backticks inside `text`. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) {
    longest = Math.max(longest, match[0].length);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

export function describeLines(startLine: number, endLine: number): string {
  return startLine === endLine ? `line ${startLine}` : `lines ${startLine}-${endLine}`;
}

/**
 * `file` relative to `folder`, `/`-separated, when it lies inside it (the run's `activeFile`:
 * the AGENTS.md files from the root down to its folder apply); undefined otherwise, as the
 * server would refuse a path outside the workspace.
 */
export function workspaceRelative(folder: string, file: string, sep: string = path.sep): string | undefined {
  const paths = sep === '/' ? path.posix : path.win32;
  const relative = paths.relative(folder, file);
  if (relative === '' || relative.startsWith('..') || paths.isAbsolute(relative)) {
    return undefined;
  }
  return relative.split(sep).join('/');
}

export function buildPrompt(prompt: string, selection?: SelectionContext): string {
  const text = prompt.trim();
  if (!selection || selection.text.trim() === '') {
    return text;
  }
  const body = selection.text.endsWith('\n') ? selection.text : `${selection.text}\n`;
  const fence = fenceFor(body);
  const lang = selection.languageId && selection.languageId !== 'plaintext' ? selection.languageId : '';
  return (
    `${text}\n\n` +
    `Context: the selected ${describeLines(selection.startLine, selection.endLine)} of ${selection.path}:\n` +
    `${fence}${lang}\n${body}${fence}\n`
  );
}
