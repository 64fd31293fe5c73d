/**
 * Saves the documents an applied server edit touched, so that tests or commands the agent
 * runs next see the change on disk (setting `agentls.saveAfterEdit`).
 *
 * Hooked in as vscode-languageclient's `middleware.workspace.handleApplyEdit`: the save
 * happens after VS Code applied the edit (after the refactor preview, for edits that need
 * confirmation; only the hunks the user kept) and BEFORE the result goes back to the server.
 */
import * as vscode from 'vscode';
import type { WorkspaceEdit } from 'vscode-languageclient';
import { editedUris } from './edits';
import { logError } from './logging';

export async function saveEditedDocuments(edit: WorkspaceEdit): Promise<void> {
  const wanted = new Set(editedUris(edit).map((uri) => vscode.Uri.parse(uri).toString()));
  for (const document of vscode.workspace.textDocuments) {
    if (document.isDirty && wanted.has(document.uri.toString())) {
      try {
        await document.save();
      } catch (error) {
        logError(`Could not save ${document.uri.fsPath} after the agent's edit`, error);
      }
    }
  }
}
