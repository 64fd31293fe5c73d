/** What a protocol WorkspaceEdit touches. Pure, unit-tested. */
import type { WorkspaceEdit } from 'vscode-languageclient';

/** The URIs (as strings) of the documents a protocol WorkspaceEdit writes to. */
export function editedUris(edit: WorkspaceEdit): string[] {
  const uris: string[] = [];
  for (const change of edit.documentChanges ?? []) {
    if ('textDocument' in change) {
      uris.push(change.textDocument.uri);
    } else if (change.kind === 'create') {
      uris.push(change.uri);
    } else if (change.kind === 'rename') {
      uris.push(change.newUri);
    }
  }
  uris.push(...Object.keys(edit.changes ?? {}));
  return [...new Set(uris)];
}
