/**
 * The inline review's wire side, pure: which server edits it takes over, the settings, and
 * the `agent/reviewDecision` notification (docs/protocol.md; its types are generated from
 * the server's models, see ../protocol).
 */
import type { ApplyWorkspaceEditParams, TextDocumentEdit } from 'vscode-languageclient';
import type { AutoSaveMode, HunkDecision, ReviewDecisionParams } from '../protocol';
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

/** The subagent whose edit each annotation id is, from the annotation's label (the server
 * labels a subagent's `subagent explore: edit a.py`); the run's own agent's are left out. */
export function subagentAuthors(params: ApplyWorkspaceEditParams): Map<string, string> {
  const authors = new Map<string, string>();
  for (const [id, note] of Object.entries(params.edit.changeAnnotations ?? {})) {
    const by = /^subagent (\S+): /.exec(note.label)?.[1];
    if (by) {
      authors.set(id, by);
    }
  }
  return authors;
}

/** How the editor's auto-save treats a file under review, and how long to wait for it. */
export interface AutoSaveRule {
  mode: AutoSaveMode;
  /** Wait this long (ms) for the auto-save before answering the agent's edit (0: do not). */
  waitMs: number;
}

/** Longest `files.autoSaveDelay` the agent waits for: longer, and it is told "soon". */
export const MAX_AUTOSAVE_WAIT_MS = 5000;

/**
 * The auto-save rule for one file, from `files.autoSave` and `files.autoSaveDelay` as they
 * apply to it. With `afterDelay` the file is saved within the delay whatever the review
 * does (no extension can hold a file out of auto-save), so the agent's answer waits for
 * that save when the delay is short: the model is then told the file is on disk, which is
 * true. The focus modes save at a moment nobody can predict: nothing to wait for.
 */
export function autoSaveRule(mode: unknown, delay: unknown): AutoSaveRule {
  const known: AutoSaveMode[] = ['afterDelay', 'onFocusChange', 'onWindowChange'];
  const m = known.includes(mode as AutoSaveMode) ? (mode as AutoSaveMode) : 'off';
  const ms = typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : 1000;
  return { mode: m, waitMs: m === 'afterDelay' && ms <= MAX_AUTOSAVE_WAIT_MS ? ms + 2000 : 0 };
}

/** What the user is told of a file's pending changes under an auto-save mode. */
export function autoSaveWords(mode: AutoSaveMode, saved: boolean): string {
  if (saved) {
    return 'already saved by auto-save';
  }
  switch (mode) {
    case 'afterDelay':
      return 'auto-save will save them shortly';
    case 'onFocusChange':
    case 'onWindowChange':
      return 'auto-save saves them when focus leaves the editor';
    default:
      return 'not saved until you decide';
  }
}

/** The run whose edit a hunk id belongs to (`review-<runId>-<n>:...`, docs/protocol.md). */
export function runOfHunk(id: string): string | undefined {
  return /^review-(.+)-\d+:/.exec(id)?.[1];
}
