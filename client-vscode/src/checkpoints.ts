/**
 * Undo a whole run: `agent/checkpoints` lists the runs that changed files, `agent/restore`
 * puts the workspace back before one of them (later runs of its session too). The restore
 * arrives as one workspace edit that VS Code confirms like any other agent edit.
 *
 * `undoRun` is exported for other views (the agent panel's per-run undo button).
 */
import type { LanguageClient } from 'vscode-languageclient/node';
import { logError } from './logging';
import { Methods, type CheckpointRun, type CheckpointsResult, type RestoreResult } from './protocol';
import type { FolderRef } from './folders';
import type { Ui } from './vscodeapi';
import { folderParam } from './workspaceFolders';

/** What the quick pick shows for a run: when, which session, which files. */
export function describeRun(run: CheckpointRun): { label: string; description: string; detail: string } {
  const when = new Date(run.at * 1000).toLocaleString();
  const files = run.files.map((f) => `${f.change === 'created' ? '+' : f.change === 'deleted' ? '−' : '~'}${f.path}`);
  return {
    label: run.kind === 'restore' ? `Undo of ${run.restores ?? '?'} (${run.runId})` : `Run ${run.runId}`,
    description: `${when} · session ${run.sessionId}`,
    detail: files.join('  '),
  };
}

/** One line for the user: what was restored, what was kept, what could not be. */
export function summarizeRestore(result: RestoreResult): string {
  if (result.status === 'rejected') {
    return `Agent: the undo of run ${result.runId} was rejected; nothing changed.`;
  }
  if (result.status !== 'applied' && result.status !== 'nothing') {
    return `Agent: undo of run ${result.runId} ${result.status}: ${result.message}`;
  }
  const parts = [`Agent: run ${result.runId} undone (${result.restored.length} file(s) restored)`];
  if (result.conflicts.length > 0) {
    parts.push(`changed since and kept: ${result.conflicts.join(', ')}`);
  }
  if (result.unrestorable.length > 0) {
    parts.push(`not restorable: ${result.unrestorable.map((u) => `${u.path} (${u.reason})`).join(', ')}`);
  }
  return parts.join('; ') + '.';
}

/** Restore `folder` to before `runId` (asked in a quick pick of its runs when not given). */
export async function undoRun(client: LanguageClient, ui: Ui, runId?: string, folder?: FolderRef): Promise<RestoreResult | undefined> {
  try {
    if (runId === undefined) {
      const listed = await client.sendRequest<CheckpointsResult>(Methods.checkpoints, { ...folderParam(folder) });
      if (listed.runs.length === 0) {
        void ui.showInformationMessage('Agent: no run has changed files yet.');
        return undefined;
      }
      const items = listed.runs.slice(0, 50).map((run) => ({ ...describeRun(run), runId: run.runId }));
      const picked = await ui.showQuickPick(items, {
        title: 'Agent: Undo run',
        placeHolder: 'Put the workspace back as it was before this run (later runs of its session are undone too)',
        matchOnDetail: true,
      });
      if (!picked) {
        return undefined;
      }
      runId = picked.runId;
    }
    const result = await client.sendRequest<RestoreResult>(Methods.restore, { runId, ...folderParam(folder) });
    const message = summarizeRestore(result);
    if (result.status === 'applied' && result.conflicts.length === 0 && result.unrestorable.length === 0) {
      void ui.showInformationMessage(message);
    } else {
      void ui.showWarningMessage(message);
    }
    return result;
  } catch (error) {
    logError(`${Methods.restore} failed`, error);
    void ui.showErrorMessage(`Agent: could not undo the run (${error instanceof Error ? error.message : String(error)}).`);
    return undefined;
  }
}
