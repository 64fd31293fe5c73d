/**
 * The workspace folders without VS Code: which folder a run works in, how a folder is named
 * to the user, and what the panel's folder picker shows (./folderPaths.ts: where a path lies).
 * Pure (the webview draws the picker from it), unit-tested; src/workspaceFolders.ts feeds it
 * VS Code's folders.
 *
 * A run works in ONE folder (its settings, trust, sessions, checkpoints and tools are that
 * folder's): the one the user picked in the panel, else the folder of the active editor's
 * file, else the first. A conversation (a session) stays in the folder it started in: its
 * record lives there. Nothing of this is shown while the workspace has one folder.
 */
/** A workspace folder as the server names it (`uri`, from `initialize.workspaceFolders`). */
export interface FolderRef {
  /** The folder's URI as VS Code gives it (`file:///...`): what `agent/run`'s `folder` carries. */
  uri: string;
  /** VS Code's name of the folder (the `.code-workspace` may rename it). */
  name: string;
  /** Its path on disk (`fsPath`). */
  path: string;
}

/** The folder picker's value that follows the active editor. */
export const AUTO_FOLDER = 'auto';

/** Whether the UI names folders at all: only with more than one (single-folder users see nothing new). */
export function severalFolders(folders: readonly FolderRef[]): boolean {
  return folders.length > 1;
}

/** The folder of `uri` in `folders`, if it is one of them. */
export function folderByUri(folders: readonly FolderRef[], uri: string | undefined): FolderRef | undefined {
  return uri === undefined ? undefined : folders.find((f) => f.uri === uri);
}

/**
 * The folder a run works in: the one picked (a folder's URI; `auto` or a folder no longer
 * open: none), else the active editor's, else the first.
 */
export function runFolder(folders: readonly FolderRef[], choice: { picked?: string; active?: string }): FolderRef | undefined {
  return folderByUri(folders, choice.picked) ?? folderByUri(folders, choice.active) ?? folders[0];
}

/** How a folder is named to the user: its name, with its parent's name when two folders share it. */
export function folderLabel(folders: readonly FolderRef[], folder: FolderRef): string {
  const twins = folders.filter((f) => f.name === folder.name);
  if (twins.length < 2) {
    return folder.name;
  }
  const parts = folder.path.split(/[\\/]/).filter((p) => p !== '');
  const parent = parts.length > 1 ? parts[parts.length - 2] : '';
  return parent ? `${folder.name} (${parent})` : folder.name;
}

/** One row of the panel's folder picker. */
export interface FolderOption {
  value: string;
  label: string;
  title: string;
}

/** What the panel's folder picker shows. */
export interface FolderPickerState {
  /** More than one folder: the picker is drawn. */
  shown: boolean;
  options: FolderOption[];
  /** The option shown as chosen (`auto` or a folder's URI). */
  selected: string;
  /** The conversation works in a folder already: the picker shows it and cannot change it. */
  locked: boolean;
  /** The picker's tooltip: where the next run works, and why. */
  title: string;
}

/**
 * The folder picker: "the active editor's folder" (naming the folder it is now) and each
 * folder; while the conversation has a session its folder only (a session's record lives
 * in its folder: New session picks again).
 */
export function folderPicker(
  folders: readonly FolderRef[],
  choice: { picked?: string; active?: string },
  conversationFolder?: FolderRef,
): FolderPickerState {
  const shown = severalFolders(folders);
  if (conversationFolder) {
    const label = folderLabel(folders, conversationFolder);
    const open = folderByUri(folders, conversationFolder.uri) !== undefined;
    const title = open
      ? `This conversation works in ${label} (${conversationFolder.path}). New session to run in another folder.`
      : `This conversation worked in ${label}, which is no longer in the workspace. New session to run in another folder.`;
    return { shown, options: [{ value: conversationFolder.uri, label, title }], selected: conversationFolder.uri, locked: true, title };
  }
  const active = folderByUri(folders, choice.active);
  const fallback = active ?? folders[0];
  const autoLabel = fallback ? `${folderLabel(folders, fallback)} (${active ? 'active editor' : 'first folder'})` : 'Active editor’s folder';
  const options: FolderOption[] = [
    {
      value: AUTO_FOLDER,
      label: autoLabel,
      title: 'The folder of the active editor’s file (the first folder when no file of the workspace is open)',
    },
    ...folders.map((f) => ({ value: f.uri, label: folderLabel(folders, f), title: f.path })),
  ];
  const picked = folderByUri(folders, choice.picked);
  const selected = picked ? picked.uri : AUTO_FOLDER;
  const target = runFolder(folders, choice);
  const title = target ? `The next run works in ${folderLabel(folders, target)} (${target.path})` : 'No folder is open';
  return { shown, options, selected, locked: false, title };
}
