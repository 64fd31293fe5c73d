/**
 * Entry point: wires settings, the server, runs, the status bar and the output channel, and
 * returns a small API (used by the end-to-end tests).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { registerCommands } from './commands';
import { CommandTerminals } from './commandTerminals';
import * as path from 'path';
import { createLog, logError, logInfo, logText, logWarn } from './logging';
import { ManagedEnvironment } from './managedEnv';
import { ReviewController } from './review/controller';
import { registerReviewUi } from './review/ui';
import { EDIT_TOOLS } from './panel/model';
import { AgentPanel } from './panel/provider';
import { Preparer } from './prepare';
import { Runs } from './runs';
import { ApiKeys } from './secrets';
import { ServerManager } from './server';
import { EditorModels } from './editorModels';
import { ProgramApprovals } from './programApproval';
import { DiagnosticsAnswers } from './diagnostics';
import { NavigationAnswers } from './navigation';
import { readSettings, SECTION, type AgentSettings } from './settings';
import { RunStatusBar } from './statusBar';
import { Transcript } from './transcript';
import { realUi, type Ui } from './vscodeapi';
import { watchWorkspaceTrust } from './workspaceTrust';

const MIRROR_LIMIT = 500_000;

export interface AgentlsApi {
  /** Replaceable UI calls (input box, quick pick, messages). */
  ui: Ui;
  server: ServerManager;
  /** The extension's own server environment (used when no setting names a server). */
  managed: ManagedEnvironment;
  runs: Runs;
  /** What was written to the "Agent" output channel (its last 500 kB). */
  outputText(): string;
  /** What the extension wrote to the "agentls server" log (its last 200 kB; not the server's stderr). */
  logText(): string;
  /** The run status bar item's text ('' when hidden). */
  statusText(): string;
  settings(): AgentSettings;
  /** The runId of the run that ended last (tests wait on it). */
  lastOutcomeRunId(): string | undefined;
  /** The inline review of agent edits. */
  review: ReviewController;
  /** The agent panel (its conversation). */
  panel: AgentPanel;
  /** The run status bar item's tooltip (Markdown or plain text). */
  statusTooltip(): string;
  /** The terminals that mirror the agent's commands, one per run. */
  terminals: CommandTerminals;
}

function settingsNow(): AgentSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const { settings, problems } = readSettings((key) => config.get(key));
  for (const problem of problems) {
    logWarn(problem.message);
  }
  return settings;
}

export async function activate(context: vscode.ExtensionContext): Promise<AgentlsApi> {
  const log = createLog();
  const ui: Ui = realUi();
  const output = vscode.window.createOutputChannel('Agent');
  let mirror = '';
  const transcript = new Transcript({
    append(text) {
      output.append(text);
      mirror = (mirror + text).slice(-MIRROR_LIMIT);
    },
  });
  const statusBar = new RunStatusBar();
  const api = {} as AgentlsApi;
  // Calls go through api.ui so that tests can swap single methods.
  const uiProxy: Ui = {
    showInputBox: (o) => api.ui.showInputBox(o),
    showQuickPick: (items, o) => api.ui.showQuickPick(items, o),
    showErrorMessage: (m, ...a) => api.ui.showErrorMessage(m, ...a),
    showWarningMessage: (m, ...a) => api.ui.showWarningMessage(m, ...a),
    showInformationMessage: (m, ...a) => api.ui.showInformationMessage(m, ...a),
    showModalWarning: (m, d, ...a) => api.ui.showModalWarning(m, d, ...a),
  };
  const runs = new Runs(statusBar, transcript, uiProxy);
  const terminals = new CommandTerminals(runs.onEvent);
  const keys = new ApiKeys(context.secrets);
  const managed = new ManagedEnvironment({
    bundleDir: path.join(context.extensionPath, 'bundled'),
    storageDir: context.globalStorageUri.fsPath,
    log: (line) => logInfo(line),
  });
  const review = new ReviewController();
  runs.toReview = (runId) => review.pendingOfRun(runId);
  runs.describeStep = (step) => {
    const file = step.args?.['path'];
    if (!EDIT_TOOLS.has(step.tool) || typeof file !== 'string') {
      return undefined;
    }
    // The server names paths relative to the run's folder.
    const folder = runs.folderOf(step.runId);
    return review.describeEdit(step.runId, file, folder ? vscode.Uri.parse(folder.uri) : undefined);
  };
  const programApprovals = new ProgramApprovals(uiProxy.showModalWarning, (line) => logInfo(line));
  const diagnostics = new DiagnosticsAnswers();
  const navigation = new NavigationAnswers();
  const editorModels = new EditorModels((line) => logInfo(line));
  const server = new ServerManager(
    log,
    settingsNow,
    keys,
    uiProxy,
    {
      onClient: (client: LanguageClient) => {
        runs.attach(client);
        review.attach(client);
        programApprovals.attach(client);
        diagnostics.attach(client);
        navigation.attach(client);
        editorModels.attach(client);
      },
      onClientGone: () => {
        runs.serverGone();
        review.serverGone();
      },
      capabilities: () => review.capabilities(),
      handleApplyEdit: (params) => review.handleApplyEdit(params),
    },
    managed,
  );
  const preparer = new Preparer(
    async () => {
      await server.settled(); // the panel may be shown while the server starts
      return server.current;
    },
    (error) => logError('agent/prepare failed', error),
  );
  const panel = new AgentPanel(context, runs, server, settingsNow, uiProxy, preparer);
  Object.assign(api, {
    ui,
    panel,
    server,
    managed,
    runs,
    outputText: () => mirror,
    logText,
    statusText: () => statusBar.text,
    statusTooltip: () => statusBar.tooltipText,
    settings: settingsNow,
    lastOutcomeRunId: () => runs.lastOutcome?.runId,
    review,
    terminals,
  });

  context.subscriptions.push(
    log,
    output,
    statusBar,
    runs,
    terminals,
    server,
    panel,
    ...registerCommands({ server, runs, keys, ui: uiProxy, output, settings: settingsNow, prepare: () => preparer.prepare(), state: context.workspaceState }),
    review,
    programApprovals,
    diagnostics,
    navigation,
    editorModels,
    ...registerReviewUi(review),
    review.onDidChange(() => {
      runs.reviewChanged();
      panel.reviewChanged();
    }),
    review.onDidDeliver((news) => {
      transcript.review(news);
      panel.reviewDelivered(news);
      if (news.state === 'lost') {
        void uiProxy.showWarningMessage(`Agent: your review (${news.summary}) could not be told to the agent: ${news.why ?? 'it was lost'}. Tell it in your next prompt if it matters.`);
      }
    }),
    ...watchWorkspaceTrust({ server, panel, statusBar }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) {
        return;
      }
      if (event.affectsConfiguration(`${SECTION}.review.mode`) && review.modeChanged()) {
        logInfo('Review mode changed: restarting the server (the mode is declared at start)');
        await server.restart();
        void panel.refreshModels();
        return;
      }
      await server.syncSettings();
      // Another model, endpoint or key variable: the picker lists what can be used now.
      void panel.refreshModels();
    }),
    keys.onDidChange(async (event) => {
      if (keys.isKeyOfOurs(event.key)) {
        logInfo('API key changed: restarting the server');
        await server.restart();
        void panel.refreshModels();
      }
    }),
  );

  void server.start();
  return api;
}

export function deactivate(): void {
  // Everything is in context.subscriptions; the server is stopped by ServerManager.dispose.
}
