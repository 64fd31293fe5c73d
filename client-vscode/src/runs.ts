/**
 * Runs: sends `agent/run` with the extension's own `runId` (so that it can `agent/cancel`
 * it), routes the run's notifications to the status bar and the output transcript, and
 * answers `agent/askUser`.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { logError, logInfo } from './logging';
import {
  Methods,
  type AskUserParams,
  type AskUserResult,
  type CancelResult,
  type PlanParams,
  type RunParams,
  type RunResult,
  type StatusParams,
  type StepParams,
  type StreamParams,
} from './protocol';
import { finalStatusText, RunView } from './runView';
import type { RunOptions } from './settings';
import type { RunStatusBar } from './statusBar';
import type { Transcript } from './transcript';
import { setContext, type Ui } from './vscodeapi';

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
}

let counter = 0;

export function newRunId(): string {
  counter += 1;
  return `vscode-${Date.now().toString(36)}-${counter}`;
}

export class Runs implements vscode.Disposable {
  private readonly active = new Map<string, ActiveRun>();
  private latest: string | undefined;
  /** The outcome of the run that ended last. */
  lastOutcome: RunOutcome | undefined;
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with a runId whenever that run's view changes (tests wait on it). */
  readonly onDidChange = this.changed.event;
  private handlers: vscode.Disposable[] = [];

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
      client.onNotification(Methods.stream, (p: StreamParams) => this.transcript.stream(p)),
      client.onNotification(Methods.step, (p: StepParams) => this.onStep(p)),
      client.onNotification(Methods.plan, (p: PlanParams) => this.transcript.plan(p)),
      client.onRequest(Methods.askUser, (p: AskUserParams) => this.askUser(p)),
    ];
  }

  detach(): void {
    for (const handler of this.handlers) {
      handler.dispose();
    }
    this.handlers = [];
  }

  get activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  view(runId: string): RunView | undefined {
    return this.active.get(runId)?.view;
  }

  async run(client: LanguageClient, prompt: string, options: RunOptions): Promise<RunOutcome> {
    const runId = newRunId();
    const view = new RunView(runId);
    const run: ActiveRun = { view, cancelRequested: false, client };
    this.active.set(runId, run);
    this.latest = runId;
    this.transcript.begin(runId, prompt, options.agent);
    this.statusBar.showRun(view);
    void setContext('agentls.running', true);
    this.changed.fire(runId);

    const params: RunParams = { prompt, runId, ...options };
    logInfo(`agent/run ${runId} (agent ${options.agent}, confirmMode ${options.confirmMode}, maxSteps ${options.maxSteps})`);
    let outcome: RunOutcome;
    try {
      const result = await client.sendRequest<RunResult>(Methods.run, params);
      const cancelled = run.cancelRequested && result.status !== 'success';
      outcome = { runId, result, cancelled };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logError(`agent/run ${runId} failed`, error);
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
      this.statusBar.showFinal(finalStatusText(outcome.result, outcome.error, outcome.cancelled), failed);
    }
    if (this.active.size === 0) {
      void setContext('agentls.running', false);
    } else if (this.latest === outcome.runId) {
      this.latest = [...this.active.keys()].pop();
    }
    this.changed.fire(outcome.runId);
  }

  /** Cancel `runId`, or the latest active run. */
  async cancel(runId?: string): Promise<boolean> {
    const id = runId ?? this.latest;
    const run = id ? this.active.get(id) : undefined;
    if (!id || !run) {
      return false;
    }
    run.cancelRequested = true;
    logInfo(`agent/cancel ${id}`);
    try {
      const result = await run.client.sendRequest<CancelResult>(Methods.cancel, { runId: id });
      return result?.cancelled ?? false;
    } catch (error) {
      logError(`agent/cancel ${id} failed`, error);
      return false;
    }
  }

  /** The server is gone: every active run ends as failed. */
  serverGone(): void {
    for (const runId of [...this.active.keys()]) {
      this.finish({ runId, error: 'the server stopped', cancelled: this.active.get(runId)?.cancelRequested ?? false });
    }
  }

  private onStatus(params: StatusParams): void {
    this.transcript.status(params.runId, params.state, params.detail);
    const run = this.active.get(params.runId);
    if (run) {
      run.view.onStatus(params);
      this.refresh(params.runId);
    }
  }

  private onStep(params: StepParams): void {
    this.transcript.step(params);
    const run = this.active.get(params.runId);
    if (run) {
      run.view.onStep(params);
      this.refresh(params.runId);
    }
  }

  private refresh(runId: string): void {
    const run = this.active.get(runId);
    if (run && this.latest === runId) {
      this.statusBar.showRun(run.view);
    }
    this.changed.fire(runId);
  }

  private async askUser(params: AskUserParams): Promise<AskUserResult> {
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
  }
}
