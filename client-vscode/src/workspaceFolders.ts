/**
 * VS Code's workspace folders as src/folders.ts sees them: the open folders, the folder of
 * the active editor's file. The language client tells the server of every folder (in
 * `initialize`, then `workspace/didChangeWorkspaceFolders`); this only decides which one a
 * run names.
 */
import * as vscode from 'vscode';
import { folderByUri, folderLabel, runFolder, severalFolders, type FolderRef } from './folders';

export function folderRef(folder: vscode.WorkspaceFolder): FolderRef {
  return { uri: folder.uri.toString(), name: folder.name, path: folder.uri.fsPath };
}

/** The workspace's folders, in VS Code's order. */
export function openFolders(): FolderRef[] {
  return (vscode.workspace.workspaceFolders ?? []).map(folderRef);
}

/** The folder of the active editor's file, if it is a file of the workspace. */
export function activeEditorFolder(): FolderRef | undefined {
  const document = vscode.window.activeTextEditor?.document;
  const folder = document ? vscode.workspace.getWorkspaceFolder(document.uri) : undefined;
  return folder ? folderRef(folder) : undefined;
}

/** Where the panel's folder choice is kept (the window's workspace state): `auto` or a folder's URI. */
export const PICKED_FOLDER_KEY = 'agentls.panel.folder';

/** The folder a run works in, `picked` in the panel (a folder's URI, or `auto`) or not. */
export function chooseRunFolder(picked?: string): FolderRef | undefined {
  return runFolder(openFolders(), { picked, active: activeEditorFolder()?.uri });
}

/** The folder named by its URI, while it is open. */
export function openFolder(uri: string | undefined): FolderRef | undefined {
  return folderByUri(openFolders(), uri);
}

/** The folder of a palette command: the active editor's, else the one picked in the panel, else the first. */
export function paletteFolder(state: vscode.Memento): FolderRef | undefined {
  return activeEditorFolder() ?? chooseRunFolder(state.get<string>(PICKED_FOLDER_KEY));
}

/** The name the UI gives `folder`: only when the workspace has several folders. */
export function shownFolderName(folder: FolderRef | undefined): string | undefined {
  const folders = openFolders();
  return folder && severalFolders(folders) ? folderLabel(folders, folder) : undefined;
}

/**
 * `{ folder }` for `agent/run` and the folder-scoped requests, when the workspace has several
 * folders. With one, nothing: the server's default is that folder, and a single-folder window
 * sends what it always did (also to an older server, e.g. one `agentls.serverPath` names,
 * which would refuse a field it does not know).
 */
export function folderParam(folder: FolderRef | undefined): { folder?: string } {
  return folder && severalFolders(openFolders()) ? { folder: folder.uri } : {};
}
