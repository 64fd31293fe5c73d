/**
 * Starts, restarts and stops the agentls server (the launch line of launch.ts, e.g.
 * `<python> -P -m agentls --stdio`, cwd = the workspace folder) through
 * vscode-languageclient, and reports a server that cannot be set up or start with ONE
 * notification that offers the log.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as readline from 'readline';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest,
  CancellationToken,
  CloseAction,
  ErrorAction,
  LanguageClient,
  ResponseError,
  State,
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { AgentCapabilities } from './capabilities';
import { logError, logInfo, logServerLine, redact, showLog } from './logging';
import { describeLaunch, type Launch } from './launch';
import { EnvironmentError, type ManagedEnvironment } from './managedEnv';
import { resolveLaunch } from './python';
import { serverEnvironment, type ApiKeys } from './secrets';
import { Methods, type WorkspaceTrustParams } from './protocol';
import {
  didChangeConfigurationParams,
  initializationOptions,
  settingsAction,
  SETTINGS_SENT,
  type AgentSettings,
  type SettingsAction,
} from './settings';
import { describeStartupFailure, type StartupFacts } from './startupFailure';
import { saveEditedDocuments } from './saveAfterEdit';
import type { Ui } from './vscodeapi';
import { workspaceFolder } from './vscodeapi';

const STDERR_TAIL = 40;
const LAUNCH_ORIGIN: Record<Launch['source'], string> = {
  serverPath: 'agentls.serverPath',
  python: 'agentls.python',
  managed: "the extension's own environment",
};
const MAX_CRASH_RESTARTS = 3;
/** The log line written when the server is told the folder is now trusted (tests wait on it). */
export const TRUST_SENT = `Told the server that the folder is now trusted (${Methods.workspaceTrust})`;
const CRASH_WINDOW_MS = 3 * 60_000;

/** A LanguageClient whose own error notifications are turned off: this module shows one. */
class AgentLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | 'force'): void {
    super.error(message, data, false);
  }
}

export interface ServerHooks {
  /** Called with each new client before it starts: register notification handlers here. */
  onClient(client: LanguageClient): void;
  /** Called when the client is gone (stopped or crashed). */
  onClientGone(): void;
  /** More of `experimental.agentls` to declare, read at each start. */
  capabilities?(): Record<string, unknown>;
  /** Takes over a server edit (inline review), or returns undefined to let it go on. */
  handleApplyEdit?(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> | undefined;
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private facts: StartupFacts = { command: '', source: 'managed', stderrTail: [] };
  private crashes: number[] = [];
  private restarting: Promise<unknown> = Promise.resolve();
  private disposed = false;
  /** The settings the server has: those it was started with, or last sent to it. */
  private sent: AgentSettings | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly settings: () => AgentSettings,
    private readonly keys: ApiKeys,
    private readonly ui: Ui,
    private readonly hooks: ServerHooks,
    private readonly managed: ManagedEnvironment,
  ) {}

  get current(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** The running client, starting the server if needed; undefined if it cannot start. */
  async ready(): Promise<LanguageClient | undefined> {
    if (this.current) {
      return this.current;
    }
    return this.start();
  }

  /** Resolves once no start or restart is under way: what a start had to say has been said. */
  async settled(): Promise<void> {
    await this.restarting;
    await this.starting?.catch(() => undefined);
  }

  start(): Promise<LanguageClient | undefined> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Stop, then start; restarts asked for while one is under way run one after another. */
  restart(): Promise<LanguageClient | undefined> {
    const next = this.restarting.then(async () => {
      await this.stop();
      this.crashes = [];
      return this.start();
    });
    this.restarting = next.catch(() => undefined);
    return next;
  }

  async stop(): Promise<void> {
    if (this.starting) {
      await this.starting.catch(() => undefined);
    }
    const client = this.client;
    this.client = undefined;
    if (client) {
      this.hooks.onClientGone();
      try {
        if (client.state === State.Running) {
          await client.stop(5000);
        }
      } catch (error) {
        logError('Stopping the server failed', error);
      }
      await client.dispose().catch(() => undefined);
    }
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    if (this.disposed) {
      return undefined;
    }
    const settings = this.settings();
    this.sent = settings;
    const folder = workspaceFolder();
    let launch: Launch;
    try {
      launch = await resolveLaunch(settings, folder, this.managed);
    } catch (error) {
      if (!(error instanceof EnvironmentError)) {
        logError('Setting up the server environment failed', error);
      }
      this.notifyFailure(error instanceof EnvironmentError ? error.message : `Could not set up the server environment: ${String(error)}`);
      return undefined;
    }
    const key = await this.keys.get(settings.apiKeyEnv);
    const env = serverEnvironment(process.env, settings.apiKeyEnv, key);
    const cwd = folder?.uri.fsPath ?? process.cwd();
    this.facts = { command: launch.command, source: launch.source, stderrTail: [] };
    logInfo(
      `Starting ${describeLaunch(launch)} (from ${LAUNCH_ORIGIN[launch.source]}; cwd ${cwd}; ` +
        `API key ${key ? `set in ${settings.apiKeyEnv}` : `not set (${settings.apiKeyEnv})`})`,
    );

    const facts = this.facts;
    const serverOptions: ServerOptions = async () => {
      const child: ChildProcess = spawn(launch.command, launch.args, { cwd, env });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', (error: NodeJS.ErrnoException) => {
          facts.spawnError = { code: error.code, message: error.message };
          reject(error);
        });
      });
      child.once('exit', (code, signal) => {
        facts.exitCode = code;
        facts.signal = signal;
        logInfo(`Server process exited (code ${code ?? '-'}, signal ${signal ?? '-'})`);
      });
      return child;
    };

    let started = false;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      // Read at each initialize, also when the client restarts a crashed server: the trust
      // and the settings are those of now, not of the first start.
      initializationOptions: () => initializationOptions(this.sent ?? settings, vscode.workspace.isTrusted),
      stdioOptions: {
        stdout: (input) => {
          input.resume();
        },
        stderr: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (line) => {
            facts.stderrTail.push(line);
            if (facts.stderrTail.length > STDERR_TAIL) {
              facts.stderrTail.shift();
            }
            channel.info(redact(line));
            logServerLine(line);
          });
        },
      },
      middleware: {
        workspace: {
          handleApplyEdit: (params, next) => this.hooks.handleApplyEdit?.(params) ?? this.applyEdit(params, next),
        },
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => this.onClosed(started),
      },
      initializationFailedHandler: () => false,
    };

    const client = new AgentLanguageClient('agentls', 'agentls', serverOptions, clientOptions);
    client.registerFeature(new AgentCapabilities(() => this.hooks.capabilities?.() ?? {}));
    this.client = client;
    this.hooks.onClient(client);
    try {
      await client.start();
      started = true;
      logInfo('Server is running');
      return client;
    } catch (error) {
      facts.error = error instanceof Error ? error.message : String(error);
      // Give the process a moment to report its exit code and the end of its stderr.
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (this.client === client) {
        this.client = undefined;
        this.hooks.onClientGone();
      }
      await client.dispose().catch(() => undefined);
      this.notifyFailure(describeStartupFailure(facts));
      return undefined;
    }
  }

  /**
   * Bring the server up to date with the settings: restart it when a launch key changed,
   * else send the changed server-wide settings. Idempotent: compares values with what the
   * server has.
   */
  async syncSettings(): Promise<SettingsAction> {
    const now = this.settings();
    const action = settingsAction(this.sent, now);
    if (action === 'restart') {
      logInfo('Server command, interpreter or API key variable changed: restarting the server');
      await this.restart();
    } else if (action === 'send') {
      const client = this.current;
      if (client) {
        this.sent = now;
        await client.sendNotification('workspace/didChangeConfiguration', didChangeConfigurationParams(now));
        logInfo(SETTINGS_SENT);
      }
    }
    return action;
  }

  /**
   * The user granted Workspace Trust: the settings VS Code held back in Restricted Mode now
   * have their workspace values (a new interpreter restarts the server, which then starts
   * trusted), and the running server is told, so that it reloads its config with the
   * workspace's own files. Revoking trust reloads the window: nothing to do for that.
   */
  async trustGranted(): Promise<void> {
    await this.settled();
    if ((await this.syncSettings()) === 'restart') {
      return;
    }
    const client = this.current;
    if (client) {
      const params: WorkspaceTrustParams = { trusted: true };
      await client.sendNotification(Methods.workspaceTrust, params);
      logInfo(TRUST_SENT);
    }
  }

  private async applyEdit(
    params: ApplyWorkspaceEditParams,
    next: ApplyWorkspaceEditRequest.HandlerSignature,
  ): Promise<ApplyWorkspaceEditResult | ResponseError<void>> {
    const result = await next(params, CancellationToken.None);
    if (!(result instanceof ResponseError) && result.applied && this.settings().saveAfterEdit) {
      await saveEditedDocuments(params.edit);
    }
    return result;
  }

  private onClosed(started: boolean): { action: CloseAction; handled: boolean } {
    // A server that never finished starting is reported once by doStart, not restarted.
    if (!started || this.disposed) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < CRASH_WINDOW_MS);
    this.crashes.push(now);
    this.hooks.onClientGone();
    if (this.crashes.length <= MAX_CRASH_RESTARTS) {
      logError(`The server stopped unexpectedly; restarting (${this.crashes.length}/${MAX_CRASH_RESTARTS})`);
      return { action: CloseAction.Restart, handled: true };
    }
    this.notifyFailure(
      `The agentls server stopped ${this.crashes.length} times in 3 minutes and will not be restarted. ` +
        'Use "Agent: Restart server" after fixing the cause.',
    );
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private notifyFailure(message: string): void {
    logError(message);
    void this.ui.showErrorMessage(`Agent: ${message}`, 'Show log').then((choice) => {
      if (choice === 'Show log') {
        showLog();
      }
    });
  }

  dispose(): void {
    this.disposed = true;
    void this.stop();
  }
}
