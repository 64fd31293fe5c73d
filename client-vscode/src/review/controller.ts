/**
 * Inline review in VS Code: takes over the server's edits that need confirmation (through
 * `middleware.workspace.handleApplyEdit`), applies them to the buffers at once without
 * showing or focusing anything, keeps a `FileReview` per file, and reports every decision
 * with `agent/reviewDecision`.
 *
 * Rules: a file with pending hunks is never saved by us; when its last hunk is decided it is
 * saved if it was clean before the agent touched it. The editor's auto-save is the user's
 * and is left alone (nothing can hold one file out of it): before answering an edit the
 * server is told what auto-save does to each file (`agent/reviewAutoSave`; with a short
 * `afterDelay`, after waiting for that save), so that the model is told the truth. Closing
 * its editor, cancelling the run or ending the session decides nothing: the hunks stay
 * pending (and are drawn again when the file is shown). A window reload forgets the
 * review: the agent's text stays in the buffer as plain text.
 *
 * What the server does with the decisions comes back as `agent/reviewDelivery`
 * (`Deliveries`): told to a model, waiting, or lost (the server restarted); the user hears
 * of what is told and of what is lost.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, Disposable, TextDocumentEdit, TextEdit } from 'vscode-languageclient';
import * as path from 'path';
import { logError, logInfo } from '../logging';
import { Methods, type AutoSaveMode, type ReviewAutoSaveParams, type ReviewDeliveryParams } from '../protocol';
import { Deliveries, type DeliveryNews } from './delivery';
import { FileReview, offsetAt, type Decided, type Hunk } from './model';
import { autoSaveRule, autoSaveWords, decisionParams, readReviewSettings, reviewable, runOfHunk, subagentAuthors, type ReviewSettings, type SentDecision } from './protocol';

export const BASELINE_SCHEME = 'agentls-baseline';

export interface PendingHunk {
  uri: vscode.Uri;
  hunk: Hunk;
}

function exists(uri: vscode.Uri): Thenable<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

/** A file the agent created, all of it undone: saved empty first (so nothing asks about
 * unsaved changes), then deleted as one workspace edit. */
async function deleteFile(doc: vscode.TextDocument): Promise<boolean> {
  try {
    if (doc.isDirty) {
      await doc.save();
    }
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(doc.uri, { ignoreIfNotExists: true });
    return await vscode.workspace.applyEdit(edit);
  } catch (error) {
    logError(`Could not delete ${doc.uri.fsPath} after its creation was undone`, error);
    return false;
  }
}

export class ReviewController implements vscode.Disposable {
  readonly files = new Map<string, FileReview>();
  /** The subagent whose edit a hunk id (an annotation id) is; absent: the run's own agent. */
  private readonly authors = new Map<string, string>();

  /** The subagent that made a hunk under review, if a subagent did. */
  authorOf(hunk: { ids: readonly string[] }): string | undefined {
    for (const id of hunk.ids) {
      const by = this.authors.get(id);
      if (by) {
        return by;
      }
    }
    return undefined;
  }
  /** Decisions sent (tests read them). */
  readonly sent: SentDecision[] = [];
  private client: LanguageClient | undefined;
  private readonly own = new Set<string>();
  /** Files the agent created (they did not exist): undoing all of one deletes it. */
  private readonly created = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<vscode.Uri | undefined>();
  readonly onDidChange = this.changed.event;
  /** After a decision went to the server (sending it also flushes the buffers' didChange). */
  private readonly reported = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Whether the decisions reached the agent. */
  readonly deliveries = new Deliveries();
  private readonly delivered = new vscode.EventEmitter<DeliveryNews>();
  /** What became of decisions sent: told to a model (with the note), waiting, or lost. */
  readonly onDidDeliver = this.delivered.event;
  private clientHandlers: Disposable[] = [];
  /** What the editor's auto-save did with each file's last agent edit (by URI). */
  private readonly autoSaved = new Map<string, { mode: AutoSaveMode; saved: boolean }>();

  constructor(private readonly settings: () => ReviewSettings = currentSettings) {
    this.subscriptions.push(
      this.changed,
      this.reported,
      this.delivered,
      vscode.workspace.onDidChangeTextDocument((e) => this.onDocumentChange(e)),
      vscode.workspace.onDidOpenTextDocument((doc) => this.onDocumentOpen(doc)),
    );
  }

  private declaredMode: ReviewSettings['mode'] | undefined;

  /** What `initialize` declares in `experimental.agentls`. */
  capabilities(): Record<string, unknown> {
    this.declaredMode = this.settings().mode;
    return this.declaredMode === 'inline' ? { inlineReview: true } : {};
  }

  /** The mode differs from the one the running server was told (it needs a restart).
   * One settings write may fire several change events: only a real change counts. */
  modeChanged(): boolean {
    return this.declaredMode !== undefined && this.settings().mode !== this.declaredMode;
  }

  attach(client: LanguageClient | undefined): void {
    if (client === this.client) {
      return;
    }
    this.clientHandlers.forEach((h) => h.dispose());
    this.clientHandlers = [];
    if (this.client !== undefined) {
      // What waited in the old server for the agent's next step is gone with it.
      const lost = this.deliveries.serverGone();
      if (lost) {
        this.delivered.fire(lost);
      }
    }
    this.client = client;
    if (client) {
      this.clientHandlers.push(
        client.onNotification(Methods.reviewDelivery, (params: ReviewDeliveryParams) => {
          const news = this.deliveries.delivered(params);
          if (news) {
            this.delivered.fire(news);
          }
        }),
      );
    }
  }

  /** The server stopped (a restart follows, or not): nothing waits in it any more. */
  serverGone(): void {
    this.attach(undefined);
  }

  get pendingCount(): number {
    let count = 0;
    for (const review of this.files.values()) {
      count += review.pending;
    }
    return count;
  }

  /** Every pending hunk, by file (URI order) then position. */
  pending(): PendingHunk[] {
    const out: PendingHunk[] = [];
    for (const key of [...this.files.keys()].sort()) {
      const review = this.files.get(key)!;
      for (const hunk of review.hunks) {
        out.push({ uri: vscode.Uri.parse(key), hunk });
      }
    }
    return out;
  }

  review(uri: vscode.Uri): FileReview | undefined {
    return this.files.get(uri.toString());
  }

  /** Pending changes that came from edits of run `runId`. */
  pendingOfRun(runId: string): number {
    let count = 0;
    for (const review of this.files.values()) {
      count += review.hunks.filter((h) => h.ids.some((id) => runOfHunk(id) === runId)).length;
    }
    return count;
  }

  /** In the user's words, a run's edit of `file` (relative to `folder`, the run's folder;
   * default the first) that waits for review: "calc.py: 2 changes waiting for your review
   * (already saved by auto-save)". */
  describeEdit(runId: string, file: string, folder: vscode.Uri | undefined = vscode.workspace.workspaceFolders?.[0]?.uri): string | undefined {
    if (!file || (!folder && !path.isAbsolute(file))) {
      return undefined;
    }
    const uri = path.isAbsolute(file) ? vscode.Uri.file(file) : vscode.Uri.joinPath(folder!, file);
    const review = this.review(uri);
    const count = review?.hunks.filter((h) => h.ids.some((id) => runOfHunk(id) === runId)).length ?? 0;
    if (count === 0) {
      return undefined;
    }
    const saving = this.autoSaved.get(uri.toString());
    const how = saving && saving.mode !== 'off' ? ` (${autoSaveWords(saving.mode, saving.saved)})` : '';
    return `${path.basename(uri.fsPath)}: ${count} change${count === 1 ? '' : 's'} waiting for your review${how}`;
  }

  /** What auto-save did with the file's last agent edit, if it is on for it. */
  autoSaveOf(uri: vscode.Uri): { mode: AutoSaveMode; saved: boolean } | undefined {
    const state = this.autoSaved.get(uri.toString());
    return state && state.mode !== 'off' ? state : undefined;
  }

  // -- agent edits ------------------------------------------------------------------------
  /** The middleware: undefined when this edit is not ours to review (the caller goes on). */
  handleApplyEdit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> | undefined {
    const parts = this.settings().mode === 'inline' ? reviewable(params) : undefined;
    if (!parts) {
      return undefined;
    }
    for (const [id, by] of subagentAuthors(params)) {
      this.authors.set(id, by);
    }
    // Several edits may be in flight: one at a time, in order.
    return this.serial(() => this.applyAgentEdit(parts)).then(async (answer) => {
      if (answer.applied && this.settings().waitForDecision) {
        await this.decisionsOf(parts);
      }
      return answer;
    });
  }

  private async applyAgentEdit(parts: Array<{ create?: string; edit?: TextDocumentEdit }>): Promise<ApplyWorkspaceEditResult> {
    for (const part of parts) {
      if (part.create) {
        const uri = vscode.Uri.parse(part.create);
        if (!(await exists(uri))) {
          this.created.add(uri.toString());
        }
        const create = new vscode.WorkspaceEdit();
        create.createFile(uri, { ignoreIfExists: true });
        if (!(await vscode.workspace.applyEdit(create))) {
          return { applied: false, failureReason: `could not create ${uri.fsPath}` };
        }
      }
    }
    const uris = parts.flatMap((p) => (p.edit ? [vscode.Uri.parse(p.edit.textDocument.uri).toString()] : []));
    // Listening before the edit lands: an auto-save may follow it at once.
    const saves = new Map(uris.map((uri) => [uri, saveOf(uri)]));
    try {
      for (const part of parts) {
        if (!part.edit) {
          continue;
        }
        const failure = await this.applyTextEdit(part.edit);
        if (failure) {
          return { applied: false, failureReason: failure };
        }
      }
      this.changed.fire(undefined);
      await Promise.all([...saves.entries()].map(([uri, save]) => this.reportAutoSave(uri, save)));
      this.changed.fire(undefined); // what auto-save did is shown too
    } finally {
      saves.forEach((save) => save.dispose());
    }
    return { applied: true };
  }

  /** Tell the server what the editor's auto-save does with the file (before the edit is
   * answered: the tool result the model reads depends on it). */
  private async reportAutoSave(key: string, save: PendingSave): Promise<void> {
    const uri = vscode.Uri.parse(key);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (!doc) {
      return;
    }
    const files = vscode.workspace.getConfiguration('files', { uri, languageId: doc.languageId });
    const rule = autoSaveRule(files.get('autoSave'), files.get('autoSaveDelay'));
    const saved = rule.waitMs > 0 ? await save.within(rule.waitMs) : save.done;
    this.autoSaved.set(key, { mode: rule.mode, saved });
    const params: ReviewAutoSaveParams = { uri: key, version: doc.version, mode: rule.mode, saved };
    logInfo(`review: auto-save ${rule.mode}${saved ? ' (saved)' : ''} for ${vscode.workspace.asRelativePath(uri)}`);
    try {
      await this.client?.sendNotification(Methods.reviewAutoSave, params);
    } catch (error) {
      logError('Could not send the auto-save state to the server', error);
    }
  }

  private async applyTextEdit(edit: TextDocumentEdit): Promise<string | undefined> {
    const uri = vscode.Uri.parse(edit.textDocument.uri);
    const key = uri.toString();
    // Opening a document shows nothing and takes no focus.
    const doc = await vscode.workspace.openTextDocument(uri);
    const version = edit.textDocument.version;
    if (version !== null && version !== undefined && doc.version !== version) {
      return `${vscode.workspace.asRelativePath(uri)} changed in the editor (version ${doc.version}, the edit was made for ${version})`;
    }
    let review = this.files.get(key);
    if (!review || review.pending === 0) {
      review = new FileReview(doc.getText(), !doc.isDirty);
      this.files.set(key, review);
    } else if (review.text !== doc.getText()) {
      await this.report(doc, review.resync(doc.getText()));
    }
    // Ranges refer to the text before the edit: apply the last one first.
    const edits = edit.edits.filter((e): e is TextEdit => 'newText' in e).sort((a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character);
    const before = review.text;
    const firstKey = review.nextHunkKey;
    for (const e of edits) {
      const start = offsetAt(before, e.range.start.line, e.range.start.character);
      const end = offsetAt(before, e.range.end.line, e.range.end.character);
      const id = 'annotationId' in e && typeof e.annotationId === 'string' ? e.annotationId : `${key}#${start}`;
      review.applyAgent({ offset: start, length: end - start, text: e.newText }, id);
    }
    review.numberInOrder(firstKey);
    const workspaceEdit = new vscode.WorkspaceEdit();
    for (const e of edits) {
      const range = new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character);
      workspaceEdit.replace(uri, range, e.newText);
    }
    this.own.add(key);
    let applied: boolean;
    try {
      applied = await vscode.workspace.applyEdit(workspaceEdit);
    } finally {
      this.own.delete(key);
    }
    if (doc.getText() !== review.text) {
      // The user typed meanwhile, or the edit failed: believe the buffer.
      await this.report(doc, review.resync(doc.getText()));
    }
    return applied ? undefined : `VS Code did not apply the edit to ${vscode.workspace.asRelativePath(uri)}`;
  }

  private decisionsOf(parts: Array<{ edit?: TextDocumentEdit }>): Promise<void> {
    const ids = new Set<string>();
    for (const part of parts) {
      for (const e of part.edit?.edits ?? []) {
        if ('annotationId' in e && typeof e.annotationId === 'string') {
          ids.add(e.annotationId);
        }
      }
    }
    const open = (): boolean => [...this.files.values()].some((r) => r.hunks.some((h) => h.ids.some((id) => ids.has(id))));
    if (!open()) {
      return Promise.resolve();
    }
    // Answer only once the decisions (and the text they left) have reached the server, so
    // that it reads the document as the user left it.
    return new Promise((resolve) => {
      const listener = this.reported.event(() => {
        if (!open()) {
          listener.dispose();
          resolve();
        }
      });
    });
  }

  // -- the user's typing --------------------------------------------------------------------
  private onDocumentChange(event: vscode.TextDocumentChangeEvent): void {
    const key = event.document.uri.toString();
    const review = this.files.get(key);
    if (!review || this.own.has(key) || event.contentChanges.length === 0) {
      return;
    }
    const decided: Decided[] = [];
    for (const change of event.contentChanges) {
      decided.push(...review.applyUser({ offset: change.rangeOffset, length: change.rangeLength, text: change.text }));
    }
    if (event.reason === vscode.TextDocumentChangeReason.Undo) {
      // The undo of our Undo: that change waits for the user again, and the agent must
      // not be told (or go on believing) it was undone.
      for (const hunk of review.restoreAfterUndo()) {
        decided.push({ key: hunk.key, ids: hunk.ids, outcome: 'pending', line: event.document.positionAt(hunk.start).line });
      }
    }
    if (review.text !== event.document.getText()) {
      decided.push(...review.resync(event.document.getText()));
    }
    this.changed.fire(event.document.uri);
    if (decided.length > 0) {
      void this.report(event.document, decided);
    }
  }

  private onDocumentOpen(doc: vscode.TextDocument): void {
    const review = this.files.get(doc.uri.toString());
    if (review && review.pending > 0 && review.text !== doc.getText()) {
      // Reverted while closed ("Don't Save"), or changed on disk: the buffer is the truth.
      void this.report(doc, review.resync(doc.getText()));
      this.changed.fire(doc.uri);
    }
  }

  /** Agent edits and the user's decisions, one at a time: a decision never meets a buffer
   * that an agent edit is still being applied to. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  // -- decisions ------------------------------------------------------------------------------
  keep(uri: vscode.Uri, hunkKey: number): Promise<boolean> {
    return this.serial(() => this.keepNow(uri, hunkKey));
  }

  undo(uri: vscode.Uri, hunkKey: number): Promise<boolean> {
    return this.serial(() => this.undoNow(uri, hunkKey));
  }

  decideFile(uri: vscode.Uri, how: 'keep' | 'undo'): Promise<number> {
    return this.serial(() => this.decideFileNow(uri, how));
  }

  decideAll(how: 'keep' | 'undo'): Promise<number> {
    return this.serial(async () => {
      let count = 0;
      for (const key of [...this.files.keys()]) {
        count += await this.decideFileNow(vscode.Uri.parse(key), how);
      }
      return count;
    });
  }

  private async keepNow(uri: vscode.Uri, hunkKey: number): Promise<boolean> {
    const review = this.review(uri);
    const decided = review?.keep(hunkKey);
    if (!review || !decided) {
      return false;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    this.changed.fire(uri);
    await this.report(doc, [decided]);
    return true;
  }

  private async undoNow(uri: vscode.Uri, hunkKey: number): Promise<boolean> {
    const review = this.review(uri);
    if (!review?.hunk(hunkKey)) {
      return false;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.getText() !== review.text) {
      await this.report(doc, review.resync(doc.getText()));
      if (!review.hunk(hunkKey)) {
        return false;
      }
    }
    const undone = review.undo(hunkKey)!;
    const key = uri.toString();
    const start = doc.positionAt(undone.change.offset);
    const end = doc.positionAt(undone.change.offset + undone.change.length);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(start, end), undone.change.text);
    this.own.add(key);
    try {
      // One edit: one step on the editor's undo stack (Ctrl+Z brings the hunk back).
      await vscode.workspace.applyEdit(edit);
    } finally {
      this.own.delete(key);
    }
    if (doc.getText() !== review.text) {
      await this.report(doc, review.resync(doc.getText()));
    }
    this.changed.fire(uri);
    await this.report(doc, [undone.decided]);
    return true;
  }

  private async decideFileNow(uri: vscode.Uri, how: 'keep' | 'undo'): Promise<number> {
    const review = this.review(uri);
    let count = 0;
    // From the end: undoing a hunk never moves the ones before it.
    for (const hunk of [...(review?.hunks ?? [])].reverse()) {
      count += (await (how === 'keep' ? this.keepNow(uri, hunk.key) : this.undoNow(uri, hunk.key))) ? 1 : 0;
    }
    return count;
  }

  /** Tell the server; after a file's last decision, save it if it was clean before. */
  private async report(doc: vscode.TextDocument, decided: Decided[]): Promise<void> {
    if (decided.length === 0) {
      return;
    }
    const key = doc.uri.toString();
    const review = this.files.get(key);
    const params = decisionParams(key, doc.version, decided);
    const createdThenUndone = this.created.has(key) && doc.getText() === '' && decided.some((d) => d.outcome === 'undone');
    if (review && review.pending === 0) {
      this.created.delete(key);
    }
    if (review && review.pending === 0 && createdThenUndone) {
      params.deleted = await deleteFile(doc);
    } else if (review && review.pending === 0 && review.wasClean && doc.isDirty) {
      const before = doc.getText();
      try {
        params.saved = await doc.save();
        params.changedOnSave = doc.getText() !== before;
        params.version = doc.version;
      } catch (error) {
        logError(`Could not save ${doc.uri.fsPath} after the review`, error);
      }
    }
    this.sent.push(params);
    const file = path.basename(doc.uri.fsPath);
    this.deliveries.sent(decided.map((d) => ({ file, key: d.key, outcome: d.outcome, ids: d.ids })));
    logInfo(`review: ${params.hunks.map((h) => `${h.outcome} ${h.id}`).join(', ')}`);
    try {
      await this.client?.sendNotification(Methods.reviewDecision, params);
    } catch (error) {
      logError('Could not send the review decision to the server', error);
    }
    this.reported.fire();
  }

  dispose(): void {
    this.clientHandlers.forEach((h) => h.dispose());
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}

interface PendingSave {
  /** Saved since the listening began. */
  readonly done: boolean;
  /** Whether it is saved within `ms`. */
  within(ms: number): Promise<boolean>;
  dispose(): void;
}

/** Listen for the next save of `uri` (an auto-save, the user's Ctrl+S). */
function saveOf(uri: string): PendingSave {
  let done = false;
  let wake: (() => void) | undefined;
  const listener = vscode.workspace.onDidSaveTextDocument((doc) => {
    if (doc.uri.toString() === uri) {
      done = true;
      wake?.();
    }
  });
  return {
    get done() {
      return done;
    },
    within(ms) {
      if (done) {
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(done), ms);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
    dispose: () => listener.dispose(),
  };
}

function currentSettings(): ReviewSettings {
  const config = vscode.workspace.getConfiguration('agentls.review');
  return readReviewSettings((key) => config.get(key));
}
