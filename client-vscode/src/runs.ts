/**
 * Runs: sends `agent/run` with the extension's own `runId` (so that it can `agent/cancel`
 * it), routes the run's notifications to the status bar and the output transcript, and
 * answers `agent/askUser`.
 */
import * as vscode from 'vscode';
import type { CancellationToken, LanguageClient, MessageActionItem, ShowMessageRequestParams } from 'vscode-languageclient/node';
import { logError, logInfo } from './logging';
import { routedRun } from './panel/routing';
import {
  Methods,
  type AskUserParams,
  type AskUserResult,
  type Attachment,
  type CancelResult,
  type CommandParams,
  type ContextParams,
  type MessageDeliveredParams,
  type MessageParams,
  type MessageResult,
  type InstructionsParams,
  type NoticeParams,
  type PlanParams,
  type RunParams,
  type RunResult,
  type StatusParams,
  type StepParams,
  type StreamParams,
  type SubagentParams,
} from './protocol';
import type { FolderRef } from './folders';
import { finalStatusText, RunView } from './runView';
import type { RunOptions } from './settings';
import type { RunStatusBar } from './statusBar';
import type { Transcript } from './transcript';
import { setContext, type Ui } from './vscodeapi';
import { folderParam, shownFolderName } from './workspaceFolders';

export interface RunOutcome {
  runId: string;
  result?: RunResult;
  error?: string;
  cancelled: boolean;
}

interface ActiveRun {
  view: RunView;
  cancelRequested: boolean;
  client: LanguageClient;
  /** Questions of this run go to `questions` (the agent panel) instead of VS Code's boxes. */
  routed: boolean;
}

/** What a run reports, in order, for listeners such as the agent panel. */
export type RunEvent =
  | {
      type: 'runStarted';
      runId: string;
      sessionId?: string;
      prompt: string;
      agent?: string;
      routed: boolean;
      worktree?: string;
      /** The folder the run works in; `folderName`: its name, given when the workspace has several. */
      folder?: FolderRef;
      folderName?: string;
    }
  | { type: 'status'; params: StatusParams }
  | { type: 'stream'; params: StreamParams }
  | { type: 'step'; params: StepParams }
  | { type: 'subagent'; params: SubagentParams }
  | { type: 'plan'; params: PlanParams }
  | { type: 'instructions'; params: InstructionsParams }
  | { type: 'notice'; params: NoticeParams }
  | { type: 'context'; params: ContextParams }
  | { type: 'messageDelivered'; params: MessageDeliveredParams }
  | { type: 'command'; params: CommandParams }
  | { type: 'runEnded'; runId: string; result?: RunResult; error?: string; cancelled: boolean };

/** Answers a routed run's questions (approvals, agent/askUser) somewhere else than VS Code's boxes. */
export interface QuestionRouter {
  approve(runId: string, message: string, actions: string[], token: CancellationToken): Promise<string | null>;
  askUser(runId: string, params: AskUserParams, token: CancellationToken): Promise<string | null>;
}

/** Extra per-run options: the session to continue, the prompt as the user typed it, routing, the file the user works in. */
export interface RunExtras {
  sessionId?: string;
  /** Workspace-relative (or absolute): the AGENTS.md files from the root down to its folder apply. */
  activeFile?: string;
  shownPrompt?: string;
  routed?: boolean;
  /** Work in this git worktree of its own (made when it does not exist), not in the user's tree. */
  worktree?: string;
  /** What the user attached (files, symbols, problems, changes, images). */
  attachments?: Attachment[];
  /** The model of this run (the panel's picker); absent: the server's choice. */
  model?: string;
  /** The workspace folder the run works in (`agent/run`'s `folder`); absent: the server's default. */
  folder?: FolderRef;
}

/** The runs of this window whose folder is remembered (their undo, their edits' paths). */
const FOLDERS_KEPT = 1000;

/** Approval questions start with this (server/approver.py); other message requests are not a run's. */
const APPROVAL_PREFIX = 'agentls wants to run ';

let counter = 0;

export function newRunId(): string {
  counter += 1;
  return `vscode-${Date.now().toString(36)}-${counter}`;
}

export class Runs implements vscode.Disposable {
  private readonly active = new Map<string, ActiveRun>();
  /** The folder of each run started in this window (the newest FOLDERS_KEPT). */
  private readonly folders = new Map<string, { folder: FolderRef; name?: string }>();
  private latest: string | undefined;
  /** The outcome of the run that ended last. */
  lastOutcome: RunOutcome | undefined;
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with a runId whenever that run's view changes (tests wait on it). */
  readonly onDidChange = this.changed.event;
  private handlers: vscode.Disposable[] = [];
  private readonly events = new vscode.EventEmitter<RunEvent>();
  /** Every run's notifications and its start and end, in order. */
  readonly onEvent = this.events.event;
  /** Set by the agent panel: where the questions of routed runs go. */
  questions: QuestionRouter | undefined;
  /** The user's words for a finished tool step, when the model's would mislead them
   * (an edit waiting for their review). */
  describeStep: ((params: StepParams) => string | undefined) | undefined;
  /** How many of a run's changes still wait for the user's review. */
  toReview: (runId: string) => number = () => 0;

  constructor(
    private readonly statusBar: RunStatusBar,
    private readonly transcript: Transcript,
    private readonly ui: Ui,
  ) {}

  /** Wire a new client's notifications and requests to this object. */
  attach(client: LanguageClient): void {
    this.detach();
    this.handlers = [
      client.onNotification(Methods.status, (p: StatusParams) => this.onStatus(p)),
      client.onNotification(Methods.stream, (p: StreamParams) => {
        this.transcript.stream(p);
        this.events.fire({ type: 'stream', params: p });
      }),
      client.onNotification(Methods.step, (p: StepParams) => this.onStep(p)),
      client.onNotification(Methods.subagent, (p: SubagentParams) => {
        this.transcript.subagent(p);
        this.progress({ type: 'subagent', params: p }, (view) => view.onSubagent(p));
      }),
      client.onNotification(Methods.plan, (p: PlanParams) => {
        this.transcript.plan(p);
        this.events.fire({ type: 'plan', params: p });
      }),
      client.onNotification(Methods.instructions, (p: InstructionsParams) => {
        this.transcript.instructions(p);
        this.events.fire({ type: 'instructions', params: p });
      }),
      client.onNotification(Methods.notice, (p: NoticeParams) => {
        this.transcript.notice(p);
        this.events.fire({ type: 'notice', params: p });
      }),
      client.onNotification(Methods.context, (p: ContextParams) => this.events.fire({ type: 'context', params: p })),
      client.onNotification(Methods.messageDelivered, (p: MessageDeliveredParams) => this.events.fire({ type: 'messageDelivered', params: p })),
      client.onNotification(Methods.command, (p: CommandParams) => this.events.fire({ type: 'command', params: p })),
      client.onRequest(Methods.askUser, (p: AskUserParams, token: CancellationToken) => this.askUser(p, token)),
      // Replaces the language client's own handler (registered handlers win): approvals of
      // routed runs are answered in the panel, everything else as before.
      client.onRequest('window/showMessageRequest', (p: ShowMessageRequestParams, token: CancellationToken) =>
        this.showMessageRequest(p, token),
      ),
    ];
  }

  detach(): void {
    for (const handler of this.handlers) {
      handler.dispose();
    }
    this.handlers = [];
  }

  /** The params of the last `agent/run` sent (the end-to-end tests read what went out). */
  lastParams: RunParams | undefined;

  /** The folder run `runId` worked in, if this window started it with one. */
  folderOf(runId: string): FolderRef | undefined {
    return this.folders.get(runId)?.folder;
  }

  get activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  view(runId: string): RunView | undefined {
    return this.active.get(runId)?.view;
  }

  async run(client: LanguageClient, prompt: string, options: RunOptions, extras: RunExtras = {}): Promise<RunOutcome> {
    const runId = newRunId();
    const folderName = shownFolderName(extras.folder);
    if (extras.folder) {
      this.folders.set(runId, { folder: extras.folder, name: folderName });
      if (this.folders.size > FOLDERS_KEPT) {
        this.folders.delete(this.folders.keys().next().value as string);
      }
    }
    const view = new RunView(runId, folderName);
    const routed = extras.routed ?? false;
    const run: ActiveRun = { view, cancelRequested: false, client, routed };
    this.active.set(runId, run);
    this.latest = runId;
    this.transcript.begin(runId, prompt, options.agent, folderName);
    this.statusBar.showRun(view);
    void setContext('agentls.running', true);
    this.changed.fire(runId);
    this.events.fire({ type: 'runStarted', runId, sessionId: extras.sessionId, prompt: extras.shownPrompt ?? prompt, agent: options.agent, routed, worktree: extras.worktree, folder: extras.folder, folderName });

    const params: RunParams = {
      prompt,
      runId,
      ...options,
      ...(extras.sessionId ? { sessionId: extras.sessionId } : {}),
      ...(extras.activeFile ? { activeFile: extras.activeFile } : {}),
      ...(extras.worktree ? { worktree: { name: extras.worktree } } : {}),
      ...(extras.attachments?.length ? { attachments: extras.attachments } : {}),
      ...(extras.model ? { model: extras.model } : {}),
      ...folderParam(extras.folder),
    };
    this.lastParams = params;
    logInfo(`${Methods.run} ${runId} (agent ${options.agent}, confirmMode ${options.confirmMode}, maxSteps ${options.maxSteps}${extras.model ? `, model ${extras.model}` : ''}${extras.worktree ? `, worktree ${extras.worktree}` : ''}${params.folder ? `, folder ${params.folder}` : ''})`);
    let outcome: RunOutcome;
    try {
      const result = await client.sendRequest<RunResult>(Methods.run, params);
      const cancelled = run.cancelRequested && result.status !== 'success';
      outcome = { runId, result, cancelled };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logError(`${Methods.run} ${runId} failed`, error);
      outcome = { runId, error: message, cancelled: run.cancelRequested };
    }
    this.finish(outcome);
    return outcome;
  }

  private finish(outcome: RunOutcome): void {
    this.active.delete(outcome.runId);
    this.lastOutcome = outcome;
    this.transcript.end(outcome.runId, outcome.result, outcome.error, outcome.cancelled);
    if (this.latest === outcome.runId) {
      const failed = !outcome.cancelled && (outcome.result === undefined || outcome.result.status === 'failed');
      this.statusBar.showFinal(this.finalText(outcome), failed, outcome.runId);
    }
    if (this.active.size === 0) {
      void setContext('agentls.running', false);
    } else if (this.latest === outcome.runId) {
      this.latest = [...this.active.keys()].pop();
    }
    this.changed.fire(outcome.runId);
    this.events.fire({ type: 'runEnded', runId: outcome.runId, result: outcome.result, error: outcome.error, cancelled: outcome.cancelled });
  }

  private finalText(outcome: RunOutcome): string {
    return finalStatusText(outcome.result, outcome.error, outcome.cancelled, this.toReview(outcome.runId), this.folders.get(outcome.runId)?.name);
  }

  /** The user decided about changes under review: the final status counts them at once. */
  reviewChanged(): void {
    const outcome = this.lastOutcome;
    if (outcome) {
      this.statusBar.updateFinal(outcome.runId, this.finalText(outcome));
    }
  }

  /** Cancel `runId`, or the latest active run. */
  async cancel(runId?: string): Promise<boolean> {
    const id = runId ?? this.latest;
    const run = id ? this.active.get(id) : undefined;
    if (!id || !run) {
      return false;
    }
    run.cancelRequested = true;
    logInfo(`${Methods.cancel} ${id}`);
    try {
      const result = await run.client.sendRequest<CancelResult>(Methods.cancel, { runId: id });
      return result?.cancelled ?? false;
    } catch (error) {
      logError(`${Methods.cancel} ${id} failed`, error);
      return false;
    }
  }

  /** Write to a run in flight (agent/message); a run this client does not know is refused here. */
  async message(runId: string, text: string, mode: 'queue' | 'steer'): Promise<MessageResult> {
    const run = this.active.get(runId);
    if (!run) {
      return { accepted: false, reason: `run ${runId} is not in flight` };
    }
    logInfo(`${Methods.message} ${runId} (${mode})`);
    try {
      const params: MessageParams = { runId, text, mode };
      return await run.client.sendRequest<MessageResult>(Methods.message, params);
    } catch (error) {
      logError(`${Methods.message} ${runId} failed`, error);
      return { accepted: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The server is gone: every active run ends as failed. */
  serverGone(): void {
    for (const runId of [...this.active.keys()]) {
      this.finish({ runId, error: 'the server stopped', cancelled: this.active.get(runId)?.cancelRequested ?? false });
    }
  }

  private onStatus(params: StatusParams): void {
    this.transcript.status(params.runId, params.state, params.detail, params.model);
    this.progress({ type: 'status', params }, (view) => view.onStatus(params));
  }

  private onStep(received: StepParams): void {
    const words = received.phase === 'tool_end' ? this.describeStep?.(received) : undefined;
    const params = words ? { ...received, summary: words } : received;
    this.transcript.step(params);
    this.progress({ type: 'step', params }, (view) => view.onStep(params));
  }

  /** A run moved on: tell the listeners, then its view and the status bar if it is still active. */
  private progress(event: RunEvent & { params: { runId: string } }, update: (view: RunView) => void): void {
    this.events.fire(event);
    const run = this.active.get(event.params.runId);
    if (run) {
      update(run.view);
      this.refresh(event.params.runId);
    }
  }

  private refresh(runId: string): void {
    const run = this.active.get(runId);
    if (run && this.latest === runId) {
      this.statusBar.showRun(run.view);
    }
    this.changed.fire(runId);
  }

  /** The run a question belongs to, when the panel is to answer it (see panel/routing). */
  private routedRun(runId?: string): string | undefined {
    if (!this.questions) {
      return undefined;
    }
    const runs = [...this.active.entries()].map(([id, run]) => ({ runId: id, routed: run.routed, state: run.view.current.state }));
    return routedRun(runs, runId);
  }

  private async showMessageRequest(params: ShowMessageRequestParams, token: CancellationToken): Promise<MessageActionItem | null> {
    const actions = params.actions ?? [];
    const runId = params.message.startsWith(APPROVAL_PREFIX) ? this.routedRun() : undefined;
    if (runId !== undefined && this.questions) {
      const title = await this.questions.approve(runId, params.message, actions.map((a) => a.title), token);
      return actions.find((a) => a.title === title) ?? null;
    }
    // What vscode-languageclient does by default.
    const show =
      params.type === 1 ? vscode.window.showErrorMessage : params.type === 2 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    return (await show(params.message, ...actions)) ?? null;
  }

  private async askUser(params: AskUserParams, token?: CancellationToken): Promise<AskUserResult> {
    const runId = this.routedRun(params.runId);
    if (runId !== undefined && this.questions && token) {
      return { answer: await this.questions.askUser(runId, params, token) };
    }
    const answer = await this.ui.showInputBox({
      title: 'The agent asks',
      prompt: params.question,
      value: params.default,
      placeHolder: 'Your answer (Escape: no answer)',
      ignoreFocusOut: true,
    });
    return { answer: answer ?? null };
  }

  dispose(): void {
    this.detach();
    this.changed.dispose();
    this.events.dispose();
  }
}
