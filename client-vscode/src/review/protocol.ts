/**
 * The inline review's wire side, pure: which server edits it takes over, the settings, and
 * the `agent/reviewDecision` notification (docs/protocol.md; its types are generated from
 * the server's models, see ../protocol).
 */
import type { ApplyWorkspaceEditParams, TextDocumentEdit } from 'vscode-languageclient';
import type { HunkDecision, ReviewDecisionParams } from '../protocol';
import type { Decided } from './model';

export type ReviewMode = 'inline' | 'refactorPreview';

export interface ReviewSettings {
  mode: ReviewMode;
  waitForDecision: boolean;
}

export function readReviewSettings(get: (key: string) => unknown): ReviewSettings {
  return {
    mode: get('mode') === 'refactorPreview' ? 'refactorPreview' : 'inline',
    waitForDecision: get('waitForDecision') === true,
  };
}

/** An `agent/reviewDecision` as the extension sends it: always with its hunks. */
export type SentDecision = ReviewDecisionParams & { hunks: HunkDecision[] };

export function decisionParams(uri: string, version: number, decided: Decided[]): SentDecision {
  const hunks: HunkDecision[] = [];
  for (const d of decided) {
    for (const id of d.ids) {
      hunks.push(d.text === undefined ? { id, outcome: d.outcome, line: d.line } : { id, outcome: d.outcome, text: d.text, line: d.line });
    }
  }
  return { uri, version, hunks };
}

export type Reviewable = Array<{ create?: string; edit?: TextDocumentEdit }>;

/**
 * The parts of a server edit, when inline review can take it: it needs confirmation (an
 * annotation says so) and holds only text edits and file creations. Deletions and renames
 * (and the plain `changes` map) go to VS Code's own preview: nothing here can show them.
 */
export function reviewable(params: ApplyWorkspaceEditParams): Reviewable | undefined {
  const edit = params.edit;
  const annotations = Object.values(edit.changeAnnotations ?? {});
  if (!annotations.some((a) => a.needsConfirmation) || edit.changes || !edit.documentChanges) {
    return undefined;
  }
  const parts: Reviewable = [];
  for (const change of edit.documentChanges) {
    if ('textDocument' in change) {
      if (!change.edits.every((e) => 'newText' in e)) {
        return undefined; // snippets are VS Code's to render
      }
      parts.push({ edit: change });
    } else if (change.kind === 'create') {
      parts.push({ create: change.uri });
    } else {
      return undefined;
    }
  }
  return parts;
}
