/**
 * The agent panel, extension side: a webview view that shows the conversation of the runs
 * started from it. This side keeps the conversation (the webview may be destroyed when hidden
 * and gets it back whole when it loads again), starts runs, answers the runs' approvals and
 * questions from the webview's cards, lists and opens sessions, and opens links and edited
 * files in VS Code. The Output channel stays the log of every run.
 *
 * In a workspace of several folders the conversation works in one folder: the one picked in
 * the panel's folder picker (remembered per window), else the active editor's, else the
 * first; once it has a session, that session's folder. Its folder-scoped requests (sessions,
 * checkpoints, commands, agents, worktrees) name that folder, and the paths its runs name
 * open from it.
 */
import * as vscode from 'vscode';
import type { CancellationToken } from 'vscode-languageclient/node';
import { undoRun } from '../checkpoints';
import { activeFile, currentSelection } from '../commands';
import { resolveInFolders } from '../folderPaths';
import { AUTO_FOLDER, folderPicker, type FolderPickerState, type FolderRef } from '../folders';
import { logError, logInfo } from '../logging';
import { SHOW_TERMINAL_COMMAND } from '../commandTerminals';
import { MANAGE_TRUST_COMMAND } from '../trust';
import type { Preparer } from '../prepare';
import { buildPrompt } from '../prompt';
import {
  Methods,
  type AgentInfo,
  type AgentsResult,
  type AskUserParams,
  type AttachCandidatesParams,
  type AttachCandidatesResult,
  type Attachment,
  type CheckpointsResult,
  type SlashCommandsResult,
  type RestoreResult,
  type SessionResult,
  type SessionsResult,
  type ApplyWorktreeResult,
  type DiscardWorktreeResult,
  type ModelCatalog,
  type WorktreesResult,
} from '../protocol';
import type { DeliveryNews } from '../review/delivery';
import type { QuestionRouter, RunEvent, Runs } from '../runs';
import { CANDIDATE_LIMIT, chipLabel } from './attachPicker';
import type { ServerManager } from '../server';
import { runOptions, type AgentSettings } from '../settings';
import { setContext, type Ui } from '../vscodeapi';
import { activeEditorFolder, chooseRunFolder, folderParam, openFolder, openFolders, PICKED_FOLDER_KEY } from '../workspaceFolders';
import type { ConfirmChoice, FromWebview, PanelOptions, ToWebview } from './messages';
import { emptyConversation, reduce, type Action, type Conversation } from './model';
import { loadingPicker, modelPicker, unlistedCatalog, type ModelPickerState } from './modelPicker';
import { emptyWorktrees, reduceWorktrees, worktreeName, type WorktreeAction, type WorktreeSessions } from './worktrees';

const OPTIONS_KEY = 'agentls.panel.options';
const CONFIRM_CHOICES: readonly ConfirmChoice[] = ['yolo', 'confirm-sensitive', 'confirm-all'];
/** The command an edit card runs; the inline review may register a richer one under this id. */
export const OPEN_EDIT_COMMAND = 'agentls.openEditReview';
/** The view's title-bar actions (package.json `view/title`). */
export const PANEL_COMMANDS = {
  newSession: 'agentls.panel.newSession',
  sessions: 'agentls.panel.sessions',
  worktrees: 'agentls.panel.worktrees',
} as const;
/** True while the panel's conversation has a run in flight: its New session action is disabled. */
const RUNNING_CONTEXT = 'agentls.panel.running';

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let text = '';
  for (let i = 0; i < 32; i += 1) {
    text += chars.charAt(Math.floor(Math.random() * chars.length));
  }
  return text;
}

export class AgentPanel implements vscode.WebviewViewProvider, QuestionRouter, vscode.Disposable {
  static readonly viewId = 'agentls.panel';
  private view: vscode.WebviewView | undefined;
  private conversation: Conversation = emptyConversation();
  private agents: AgentInfo[] = [];
  /** Answers the webview gives to open approval and question cards, by card id. */
  private readonly waiting = new Map<string, (answer: string | null) => void>();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;
  /** The folder is in Restricted Mode: the panel says so. */
  private restricted = false;
  /** Whether a webview has loaded and got the conversation (tests wait on it). */
  webviewReady = false;
  private readonly changed = new vscode.EventEmitter<Conversation>();
  /** Fires after every change of the conversation (tests wait on it). */
  readonly onDidChange = this.changed.event;
  /** The runs in worktrees of their own and the worktrees the repository holds. */
  private worktreeSessions: WorktreeSessions = emptyWorktrees();
  /** The server's last answer to `agent/models` (listed: false when it could not be asked). */
  private catalog: { catalog: ModelCatalog; listed: boolean } | undefined;
  private models: ModelPickerState = loadingPicker();
  /** Answers to `agent/models` older than the last question are dropped. */
  private modelsAsked = 0;
  /** What a title-bar action asked of the webview before it had loaded: sent once it has. */
  private pending: ToWebview[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly runs: Runs,
    private readonly server: ServerManager,
    private readonly settings: () => AgentSettings,
    private readonly ui: Ui,
    private readonly preparer: Preparer,
  ) {
    runs.questions = this;
    this.disposables.push(
      runs.onEvent((event) => this.onRunEvent(event)),
      vscode.window.registerWebviewViewProvider(AgentPanel.viewId, this),
      vscode.commands.registerCommand(OPEN_EDIT_COMMAND, (path: unknown, runId?: unknown) => this.openFile(path, runId)),
      vscode.commands.registerCommand(PANEL_COMMANDS.newSession, () => this.newSession()),
      vscode.commands.registerCommand(PANEL_COMMANDS.sessions, () => this.toWebview({ type: 'toggleSessions' })),
      vscode.commands.registerCommand(PANEL_COMMANDS.worktrees, () => this.toWebview({ type: 'toggleWorktrees' })),
      // The picker names the active editor's folder, and lists the folders open now.
      vscode.window.onDidChangeActiveTextEditor(() => this.postFolders()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.foldersChanged()),
    );
  }

  // -- folders ----------------------------------------------------------------------------

  /** The folder picker's choice: `auto` (the active editor's folder) or a folder's URI. */
  get pickedFolder(): string {
    return this.context.workspaceState.get<string>(PICKED_FOLDER_KEY) ?? AUTO_FOLDER;
  }

  /** The folder the conversation's next run works in (its session's, else the one chosen),
   * and so the folder the panel's lists (agents, commands, models, sessions...) are asked of;
   * a session's folder that was removed is not asked of (the server no longer knows it). */
  get folder(): FolderRef | undefined {
    const own = this.conversation.folder;
    return own && openFolder(own.uri) ? own : chooseRunFolder(this.pickedFolder);
  }

  /** The folder the panel's lists were last asked of. */
  private listedFolder: string | undefined;

  /** The folder picker as the panel shows it (tests read it). */
  get folderPicker(): FolderPickerState {
    return folderPicker(openFolders(), { picked: this.pickedFolder, active: activeEditorFolder()?.uri }, this.conversation.folder);
  }

  /** Pick the folder of the conversation's runs (`auto`: the active editor's); while the
   * conversation has its folder, it applies from the next one. Also used by tests through
   * the extension's API. */
  async pickFolder(value: string): Promise<void> {
    const known = value === AUTO_FOLDER || openFolder(value) !== undefined;
    await this.context.workspaceState.update(PICKED_FOLDER_KEY, known ? value : AUTO_FOLDER);
    logInfo(`Panel: folder ${known ? value : AUTO_FOLDER}`);
    this.postFolders();
  }

  /** The picker drawn again; when the panel's folder is now another (a pick, another active
   * editor, a new conversation, folders added or removed), what it lists is asked again. */
  private postFolders(): void {
    this.post({ type: 'folders', picker: this.folderPicker });
    const now = this.folder?.uri;
    if (now !== this.listedFolder && this.webviewReady) {
      this.listedFolder = now;
      void this.loadAgents();
      void this.refreshWorktrees();
      void this.refreshModels();
    }
  }

  /** Folders were added or removed: a picked folder that is gone falls back to the active editor's. */
  private async foldersChanged(): Promise<void> {
    const picked = this.pickedFolder;
    if (picked !== AUTO_FOLDER && !openFolder(picked)) {
      await this.context.workspaceState.update(PICKED_FOLDER_KEY, AUTO_FOLDER);
    }
    this.postFolders();
  }

  setRestricted(restricted: boolean): void {
    this.restricted = restricted;
    this.post({ type: 'restricted', restricted });
  }

  /** The conversation as the panel shows it. */
  get current(): Conversation {
    return this.conversation;
  }

  /** The worktree sessions as the panel shows them. */
  get worktrees(): WorktreeSessions {
    return this.worktreeSessions;
  }

  get options(): PanelOptions {
    const stored = this.context.workspaceState.get<Partial<PanelOptions>>(OPTIONS_KEY) ?? {};
    const settings = this.settings();
    return {
      agent: typeof stored.agent === 'string' && stored.agent ? stored.agent : settings.agent,
      confirmMode: CONFIRM_CHOICES.includes(stored.confirmMode as ConfirmChoice) ? (stored.confirmMode as ConfirmChoice) : settings.confirmMode,
      includeSelection: stored.includeSelection ?? true,
      worktree: stored.worktree === true,
      ...(typeof stored.model === 'string' && stored.model ? { model: stored.model } : {}),
    };
  }

  /** The model picker as the panel shows it (tests read it). */
  get modelPicker(): ModelPickerState {
    return this.models;
  }

  /** The picker for the last catalog and the model `chosen` (the remembered one by default). */
  private pickerFor(chosen: string | undefined = this.options.model): ModelPickerState {
    return this.catalog ? modelPicker(this.catalog.catalog, chosen, this.catalog.listed) : loadingPicker();
  }

  /**
   * Ask the server which models can be used now (`agent/models`): when the panel opens and
   * when the settings change. A server that cannot say (an older one, a failed request)
   * leaves the configured model as the one entry, and nothing is sent as a run's `model`.
   * It never starts the server: a server that failed to start would say why once more.
   */
  async refreshModels(): Promise<void> {
    this.modelsAsked += 1;
    const asked = this.modelsAsked;
    await this.server.settled();
    const client = this.server.current;
    let catalog: { catalog: ModelCatalog; listed: boolean };
    if (!client) {
      catalog = { catalog: unlistedCatalog(this.settings().model, 'The server is not running.'), listed: false };
    } else {
      try {
        catalog = { catalog: await client.sendRequest<ModelCatalog>(Methods.models, { ...folderParam(this.folder) }), listed: true };
      } catch (error) {
        logError(`${Methods.models} failed`, error);
        const why = error instanceof Error ? error.message : String(error);
        catalog = { catalog: unlistedCatalog(this.settings().model, `The server did not list its models (${why}).`), listed: false };
      }
    }
    if (asked !== this.modelsAsked) {
      return; // a later question is on its way
    }
    this.catalog = catalog;
    this.models = this.pickerFor();
    this.post({ type: 'models', picker: this.models });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const root = vscode.Uri.joinPath(this.context.extensionUri, 'out', 'webview');
    view.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [root] };
    view.webview.html = this.html(view.webview, root);
    // Shown: the user may be about to run the agent (agent/prepare starts the model worker).
    if (view.visible) {
      void this.preparer.prepare();
    }
    const subscriptions = [
      view.onDidChangeVisibility(() => {
        if (view.visible) {
          void this.preparer.prepare();
          void this.refreshModels();
        }
      }),
      view.webview.onDidReceiveMessage((message: FromWebview) => this.onMessage(message)),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.webviewReady = false;
        }
        subscriptions.forEach((d) => d.dispose());
      }),
    ];
  }

  private html(webview: vscode.Webview, root: vscode.Uri): string {
    const n = nonce();
    const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'panel.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'panel.css'));
    // Nothing remote, no inline script or style, no eval: only our bundle, by nonce.
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${n}'`,
      `font-src ${webview.cspSource}`,
      "img-src 'none'",
      "connect-src 'none'",
      "form-action 'none'",
      "base-uri 'none'",
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Agent</title>
</head>
<body>
<div id="app"></div>
<script nonce="${n}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  private post(message: ToWebview): void {
    void this.view?.webview.postMessage(message);
  }

  /** A title-bar action's message: the panel is shown first, and its webview gets it once loaded. */
  private toWebview(message: ToWebview): void {
    if (this.view && this.webviewReady) {
      this.reveal();
      this.post(message);
      return;
    }
    this.pending.push(message);
    this.reveal();
  }

  /** The New session action: a new conversation, unless a run is in flight. */
  newSession(): void {
    if (!this.conversation.runId) {
      this.apply({ type: 'newSession' });
      this.post({ type: 'focusPrompt' });
    }
  }

  private apply(action: Action): void {
    const wasRunning = this.conversation.runId !== undefined;
    const folderBefore = this.conversation.folder?.uri;
    this.conversation = reduce(this.conversation, action);
    if (this.conversation.folder?.uri !== folderBefore) {
      this.postFolders();
    }
    const running = this.conversation.runId !== undefined;
    if (running !== wasRunning) {
      void setContext(RUNNING_CONTEXT, running);
    }
    this.post({ type: 'action', action });
    this.changed.fire(this.conversation);
  }

  private applyWorktrees(action: WorktreeAction): void {
    this.worktreeSessions = reduceWorktrees(this.worktreeSessions, action);
    this.post({ type: 'worktrees', worktrees: this.worktreeSessions });
  }

  /** A run in a worktree: its card follows it; its end lists the worktrees again. */
  private onWorktreeRunEvent(event: RunEvent): boolean {
    if (event.type === 'runStarted') {
      if (!event.worktree) {
        return false;
      }
      this.applyWorktrees({ type: 'runStarted', runId: event.runId, name: event.worktree, prompt: event.prompt, agent: event.agent });
      return true;
    }
    const runId = event.type === 'runEnded' ? event.runId : event.params.runId;
    if (!this.worktreeSessions.runs.some((run) => run.runId === runId)) {
      return false;
    }
    if (event.type === 'status' || event.type === 'step') {
      this.applyWorktrees(event);
    } else if (event.type === 'runEnded') {
      this.applyWorktrees({ type: 'runEnded', runId, result: event.result, error: event.error, cancelled: event.cancelled });
      void this.refreshWorktrees();
    }
    return true;
  }

  private onRunEvent(event: RunEvent): void {
    if (this.onWorktreeRunEvent(event)) {
      return;
    }
    if (event.type === 'runStarted') {
      if (!event.routed) {
        return;
      }
      this.apply({ type: 'runStarted', runId: event.runId, sessionId: event.sessionId, prompt: event.prompt, agent: event.agent, folder: event.folder, folderName: event.folderName });
      return;
    }
    if (event.type === 'command') {
      // Only the start matters here: the card gets its link to the terminal.
      if (event.params.event === 'started' && this.conversation.items.some((it) => it.runId === event.params.runId)) {
        this.apply({ type: 'commandStarted', runId: event.params.runId, callId: event.params.callId });
      }
      return;
    }
    const runId = event.type === 'runEnded' ? event.runId : event.params.runId;
    if (event.type === 'messageDelivered' || event.type === 'context') {
      if (runId === this.conversation.runId) {
        this.apply(event);
      }
      return;
    }
    if (!this.conversation.items.some((it) => it.runId === runId)) {
      return; // a run of the palette: the Output channel and the status bar show it
    }
    if (event.type === 'runEnded') {
      for (const item of this.conversation.items) {
        if (item.runId === runId) {
          this.settle(item.id, null);
        }
      }
    }
    this.apply(event);
    if (event.type === 'runEnded') {
      void this.refreshCheckpoints();
    }
  }

  /** Which runs of the conversation's session changed files: those get an undo button,
   * which says what undoing does now. */
  private async refreshCheckpoints(): Promise<void> {
    const sessionId = this.conversation.sessionId;
    const client = this.server.current;
    if (!sessionId || !client) {
      return;
    }
    try {
      const result = await client.sendRequest<CheckpointsResult>(Methods.checkpoints, { sessionId, ...folderParam(this.folder) });
      if (this.conversation.sessionId === sessionId) {
        const previews = Object.fromEntries(result.runs.flatMap((run) => (run.undo ? [[run.runId, run.undo]] : [])));
        this.apply({ type: 'checkpoints', runIds: result.runs.map((run) => run.runId), previews });
      }
    } catch (error) {
      logError(`${Methods.checkpoints} failed`, error);
    }
  }

  private reviewTimer: ReturnType<typeof setTimeout> | undefined;

  /** The user kept or undid changes under review: what an undo button offers may change
   * (asked once the clicks settle). */
  reviewChanged(): void {
    if (!this.conversation.undoable?.length || this.conversation.runId) {
      return;
    }
    clearTimeout(this.reviewTimer);
    this.reviewTimer = setTimeout(() => void this.refreshCheckpoints(), 300);
  }

  /** What the model of one of the panel's runs was told about the user's review. */
  reviewDelivered(news: DeliveryNews): void {
    if (news.state !== 'told' || !news.runId || !news.note || !this.conversation.items.some((it) => it.runId === news.runId)) {
      return;
    }
    this.apply({ type: 'reviewTold', runId: news.runId, summary: news.summary, note: news.note, otherSession: news.otherSession });
  }

  /**
   * The undo button of a run: the same flow as "Agent: Undo run…" for that run (one workspace
   * edit the user confirms), then the panel shows what went back.
   */
  async undo(runId: string): Promise<RestoreResult | undefined> {
    if (this.conversation.runId) {
      void this.ui.showWarningMessage('Agent: finish or stop the current run before undoing one.');
      return undefined;
    }
    const client = await this.server.ready();
    if (!client) {
      return undefined;
    }
    const result = await undoRun(client, this.ui, runId, this.runs.folderOf(runId) ?? this.folder);
    if (result?.restoreRunId) {
      this.apply({ type: 'restored', result });
    }
    await this.refreshCheckpoints();
    return result;
  }

  private settle(id: string, answer: string | null): void {
    const resolve = this.waiting.get(id);
    if (resolve) {
      this.waiting.delete(id);
      resolve(answer);
    }
  }

  private ask(action: Action & { id: string }, token: CancellationToken): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiting.set(action.id, resolve);
      const cancelled = token.onCancellationRequested(() => {
        // The server withdrew the question (the run was cancelled).
        if (this.waiting.has(action.id)) {
          this.waiting.delete(action.id);
          this.apply(action.type === 'approval' ? { type: 'approvalAnswered', id: action.id, answer: 'withdrawn' } : { type: 'askAnswered', id: action.id, answer: null });
          resolve(null);
        }
        cancelled.dispose();
      });
      this.apply(action);
      this.reveal();
    });
  }

  approve(runId: string, message: string, actions: string[], token: CancellationToken): Promise<string | null> {
    this.counter += 1;
    return this.ask({ type: 'approval', id: `a-${runId}-${this.counter}`, runId, message, actions }, token);
  }

  askUser(runId: string, params: AskUserParams, token: CancellationToken): Promise<string | null> {
    this.counter += 1;
    return this.ask({ type: 'ask', id: `q-${runId}-${this.counter}`, runId, question: params.question, default: params.default }, token);
  }

  /** A question must be seen: show the panel if it is hidden. */
  private reveal(): void {
    if (this.view) {
      if (!this.view.visible) {
        this.view.show(true);
      }
      return;
    }
    void vscode.commands.executeCommand(`${AgentPanel.viewId}.focus`);
  }

  private async onMessage(message: FromWebview): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.post({
          type: 'snapshot',
          conversation: this.conversation,
          options: this.options,
          agents: this.agents,
          restricted: this.restricted,
          worktrees: this.worktreeSessions,
          models: this.models,
          folders: this.folderPicker,
        });
        this.webviewReady = true;
        this.listedFolder = this.folder?.uri;
        for (const pending of this.pending.splice(0)) {
          this.post(pending);
        }
        void this.loadAgents();
        void this.refreshWorktrees();
        void this.refreshModels();
        return;
      case 'options':
        await this.setOptions(message.options);
        return;
      case 'pickFolder':
        await this.pickFolder(message.value);
        return;
      case 'typing':
        await this.preparer.prepare();
        return;
      case 'run':
        await this.setOptions(message.options);
        await this.run(message.prompt, message.options, message.attachments ?? []);
        return;
      case 'attachCandidates':
        await this.attachCandidates(message.query, message.seq);
        return;
      case 'message':
        await this.message(message.text, message.mode);
        return;
      case 'cancel':
        if (this.conversation.runId) {
          await this.runs.cancel(this.conversation.runId);
        }
        return;
      case 'approve':
        if (this.waiting.has(message.id)) {
          this.apply({ type: 'approvalAnswered', id: message.id, answer: message.answer });
          this.settle(message.id, message.answer);
        }
        return;
      case 'answer':
        if (this.waiting.has(message.id)) {
          this.apply({ type: 'askAnswered', id: message.id, answer: message.answer });
          this.settle(message.id, message.answer);
        }
        return;
      case 'openLink':
        await this.openLink(message.href);
        return;
      case 'openEdit':
        await vscode.commands.executeCommand(OPEN_EDIT_COMMAND, message.path, message.runId);
        return;
      case 'openFile':
        await this.openFile(message.path);
        return;
      case 'showTerminal':
        await vscode.commands.executeCommand(SHOW_TERMINAL_COMMAND, message.runId);
        return;
      case 'listCommands':
        await this.listCommands();
        return;
      case 'listSessions':
        await this.listSessions();
        return;
      case 'openSession':
        await this.openSession(message.sessionId);
        return;
      case 'continueSession':
        this.apply({ type: 'continueSession' });
        this.post({ type: 'focusPrompt' });
        return;
      case 'undoRun':
        await this.undo(message.runId);
        return;
      case 'listWorktrees':
        await this.refreshWorktrees();
        return;
      case 'applyWorktree':
        await this.applyWorktree(message.name);
        return;
      case 'discardWorktree':
        await this.discardWorktree(message.name);
        return;
      case 'stopRun':
        await this.runs.cancel(message.runId);
        return;
      case 'manageTrust':
        await vscode.commands.executeCommand(MANAGE_TRUST_COMMAND);
        return;
    }
  }

  /** The options the webview chose, kept for the workspace; a new model choice redraws the picker (its notes). */
  private async setOptions(options: PanelOptions): Promise<void> {
    const before = this.options.model;
    await this.context.workspaceState.update(OPTIONS_KEY, options);
    if (options.model !== before && this.catalog) {
      this.models = this.pickerFor(options.model);
      this.post({ type: 'models', picker: this.models });
    }
  }

  /** Write to the run in flight (also used by tests through the extension's API). */
  async message(text: string, mode: 'queue' | 'steer' = 'queue'): Promise<boolean> {
    const runId = this.conversation.runId;
    if (text.trim() === '') {
      return false;
    }
    const result = runId ? await this.runs.message(runId, text, mode) : { accepted: false, reason: 'no run is in flight' };
    if (!result.accepted || !result.messageId || !runId) {
      this.post({ type: 'messageRejected', text, reason: result.reason ?? 'the run did not take the message' });
      return false;
    }
    this.apply({ type: 'messageQueued', runId, messageId: result.messageId, text, mode });
    return true;
  }

  /** Start a run from the panel (also used by tests through the extension's API). */
  async run(prompt: string, options: PanelOptions = this.options, attachments: Attachment[] = []): Promise<void> {
    if (options.worktree) {
      await this.runInWorktree(prompt, options, attachments);
      return;
    }
    if (prompt.trim() === '' || this.conversation.runId || this.conversation.readOnly) {
      return;
    }
    const folder = this.folder;
    if (this.conversation.folder && !openFolder(this.conversation.folder.uri)) {
      void this.ui.showWarningMessage(
        `Agent: this conversation works in the folder ${this.conversation.folder.name}, which is no longer in the workspace. Start a new session to run in another folder.`,
      );
      return;
    }
    const client = await this.server.ready();
    if (!client) {
      return; // the server manager told the user why
    }
    const selection = options.includeSelection ? currentSelection(folder) : undefined;
    const base = runOptions(this.settings(), options.agent);
    const context = [
      ...(selection ? [`${selection.path}:${selection.startLine}-${selection.endLine}`] : []),
      ...attachments.map(chipLabel),
    ];
    const shown = context.length ? `${prompt.trim()}\n\n(with ${context.join(', ')})` : prompt.trim();
    const model = this.pickerFor(options.model).runModel;
    await this.runs.run(client, buildPrompt(prompt, selection), { ...base, confirmMode: options.confirmMode }, {
      model,
      sessionId: this.conversation.sessionId,
      shownPrompt: shown,
      routed: true,
      activeFile: activeFile(folder),
      attachments,
      folder,
    });
  }

  /**
   * A run in a worktree of its own, named here so that its card is known before the server
   * makes it. It is not the conversation's: the prompt box stays free for a run in the user's
   * tree or in another worktree. Its questions are asked by VS Code's own boxes (several runs
   * may ask at once). Resolves to the worktree's name when the run ends.
   */
  async runInWorktree(prompt: string, options: PanelOptions = this.options, attachments: Attachment[] = [], name?: string): Promise<string | undefined> {
    if (prompt.trim() === '') {
      return undefined;
    }
    const client = await this.server.ready();
    if (!client) {
      return undefined;
    }
    const worktree = name ?? worktreeName(this.worktreeSessions.runs.length);
    const base = runOptions(this.settings(), options.agent);
    // Not the conversation's: the folder chosen now.
    const folder = chooseRunFolder(this.pickedFolder);
    if (folder) {
      this.worktreeFolders.set(worktree, folder);
    }
    // The selection's path is the same in the worktree, a copy of the user's tree.
    const selection = options.includeSelection ? currentSelection(folder) : undefined;
    const context = [
      ...(selection ? [`${selection.path}:${selection.startLine}-${selection.endLine}`] : []),
      ...attachments.map(chipLabel),
    ];
    const shown = context.length ? `${prompt.trim()}\n\n(with ${context.join(', ')})` : prompt.trim();
    const model = this.pickerFor(options.model).runModel;
    await this.runs.run(client, buildPrompt(prompt, selection), { ...base, confirmMode: options.confirmMode }, { model, shownPrompt: shown, worktree, attachments, folder });
    return worktree;
  }

  /** The folder of each worktree the panel knows (its run's folder, or the folder it was listed from). */
  private readonly worktreeFolders = new Map<string, FolderRef>();

  /** Ask the server which worktrees the repository of the chosen folder holds (on a run's end, on demand). */
  async refreshWorktrees(): Promise<void> {
    const client = await this.server.ready();
    if (!client) {
      this.applyWorktrees({ type: 'listFailed', error: 'The server is not running.' });
      return;
    }
    const folder = chooseRunFolder(this.pickedFolder);
    try {
      const result = await client.sendRequest<WorktreesResult>(Methods.worktrees, { ...folderParam(folder) });
      if (folder) {
        for (const worktree of result.worktrees) {
          this.worktreeFolders.set(worktree.name, folder);
        }
      }
      this.applyWorktrees({ type: 'listed', worktrees: result.worktrees });
    } catch (error) {
      logError(`${Methods.worktrees} failed`, error);
      this.applyWorktrees({ type: 'listFailed', error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Apply a worktree's changes to the user's tree: one agent edit, which the inline review
   * shows in the editor (its first file is opened there); a conflict writes nothing and the
   * card lists the files and why.
   */
  async applyWorktree(name: string): Promise<ApplyWorktreeResult | undefined> {
    const client = await this.server.ready();
    if (!client) {
      return undefined;
    }
    this.applyWorktrees({ type: 'busy', name });
    try {
      const folder = this.worktreeFolders.get(name) ?? chooseRunFolder(this.pickedFolder);
      const result = await client.sendRequest<ApplyWorktreeResult>(Methods.applyWorktree, { name, ...folderParam(folder) });
      logInfo(`${Methods.applyWorktree} ${name}: ${result.status}`);
      this.applyWorktrees({ type: 'applied', name, result });
      if (result.status === 'applied' && result.files.length > 0) {
        await this.openIn(folder, result.files[0]);
      }
      return result;
    } catch (error) {
      logError(`${Methods.applyWorktree} ${name} failed`, error);
      this.applyWorktrees({ type: 'failed', name, action: 'apply', error: error instanceof Error ? error.message : String(error) });
      return undefined;
    } finally {
      void this.refreshWorktrees();
    }
  }

  /** Remove a worktree and its branch, once the user confirms; a refusal is shown on its card. */
  async discardWorktree(name: string): Promise<boolean> {
    const choice = await this.ui.showModalWarning(
      `Discard the worktree ${name}?`,
      `Its folder and its branch agentls/${name} are deleted, with every change on them that you did not apply.`,
      'Discard',
    );
    if (choice !== 'Discard') {
      return false;
    }
    const client = await this.server.ready();
    if (!client) {
      return false;
    }
    this.applyWorktrees({ type: 'busy', name });
    try {
      const folder = this.worktreeFolders.get(name) ?? chooseRunFolder(this.pickedFolder);
      const result = await client.sendRequest<DiscardWorktreeResult>(Methods.discardWorktree, { name, ...folderParam(folder) });
      logInfo(`${Methods.discardWorktree} ${name}: ${result.discarded}`);
      this.applyWorktrees({ type: 'discarded', name });
      return result.discarded;
    } catch (error) {
      logError(`${Methods.discardWorktree} ${name} failed`, error);
      this.applyWorktrees({ type: 'failed', name, action: 'discard', error: error instanceof Error ? error.message : String(error) });
      return false;
    } finally {
      void this.refreshWorktrees();
    }
  }

  /** The `@` picker's rows for `query`: searched by the server, at most a few of each kind. */
  private async attachCandidates(query: string, seq: number): Promise<void> {
    const client = await this.server.ready();
    if (!client) {
      this.post({ type: 'attachCandidates', seq, items: [], notes: [], error: 'The server is not running.' });
      return;
    }
    try {
      const params: AttachCandidatesParams = { query, limit: CANDIDATE_LIMIT, ...folderParam(this.folder) };
      const result = await client.sendRequest<AttachCandidatesResult>(Methods.attachCandidates, params);
      this.post({ type: 'attachCandidates', seq, items: result.items, notes: result.notes });
    } catch (error) {
      logError(`${Methods.attachCandidates} failed`, error);
      this.post({ type: 'attachCandidates', seq, items: [], notes: [], error: error instanceof Error ? error.message : String(error) });
    }
  }

  private async loadAgents(): Promise<void> {
    const client = await this.server.ready();
    if (!client) {
      return;
    }
    try {
      const result = await client.sendRequest<AgentsResult>(Methods.agents, { ...folderParam(this.folder) });
      this.agents = result.agents;
      this.post({ type: 'agents', agents: this.agents });
    } catch (error) {
      logError(`${Methods.agents} failed`, error);
    }
  }

  /** Asked each time the picker opens: a prompt file written a moment ago is listed. */
  private async listCommands(): Promise<void> {
    const client = await this.server.ready();
    if (!client) {
      this.post({ type: 'commands', commands: [], problems: [], error: 'The server is not running.' });
      return;
    }
    try {
      const result = await client.sendRequest<SlashCommandsResult>(Methods.commands, { ...folderParam(this.folder) });
      this.post({ type: 'commands', commands: result.commands, problems: result.problems });
    } catch (error) {
      logError(`${Methods.commands} failed`, error);
      this.post({ type: 'commands', commands: [], problems: [], error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** The folder whose sessions the panel listed last (a session opened from the list is its). */
  private sessionsFolder: FolderRef | undefined;

  private async listSessions(): Promise<void> {
    const client = await this.server.ready();
    if (!client) {
      this.post({ type: 'sessions', sessions: [], error: 'The server is not running.' });
      return;
    }
    try {
      this.sessionsFolder = this.folder;
      const result = await client.sendRequest<SessionsResult>(Methods.sessions, { ...folderParam(this.sessionsFolder) });
      this.post({ type: 'sessions', sessions: result.sessions });
    } catch (error) {
      logError(`${Methods.sessions} failed`, error);
      this.post({ type: 'sessions', sessions: [], error: error instanceof Error ? error.message : String(error) });
    }
  }

  async openSession(sessionId: string): Promise<void> {
    if (this.conversation.runId) {
      return; // one conversation at a time: finish or stop the run first
    }
    const client = await this.server.ready();
    if (!client) {
      return;
    }
    try {
      // The sessions listed were that folder's: the session opened works there.
      const folder = this.sessionsFolder ?? this.folder;
      const result = await client.sendRequest<SessionResult>(Methods.session, { sessionId, ...folderParam(folder) });
      logInfo(`Panel: opened session ${sessionId} (${result.entries.length} entries)`);
      this.apply({ type: 'sessionLoaded', sessionId: result.sessionId, entries: result.entries, folder });
      await this.refreshCheckpoints();
    } catch (error) {
      logError(`${Methods.session} ${sessionId} failed`, error);
      void vscode.window.showErrorMessage(`Agent: could not open the session (${error instanceof Error ? error.message : String(error)}).`);
    }
  }

  private async openLink(href: string): Promise<void> {
    const trimmed = href.trim();
    if (/^(https?:|mailto:)/i.test(trimmed)) {
      await vscode.env.openExternal(vscode.Uri.parse(trimmed, true));
      return;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) {
      logInfo(`Panel: refused to open link ${trimmed}`);
      return;
    }
    await this.openFile(trimmed.split('#')[0]);
  }

  /**
   * Open a workspace file: one the agent edited (inline review may take over that command), an
   * instruction file, a link. A relative path is the folder's of run `runId` (else the
   * conversation's): the server names paths relative to the run's folder.
   */
  private async openFile(path: unknown, runId?: unknown): Promise<void> {
    const folder = (typeof runId === 'string' ? this.runs.folderOf(runId) : undefined) ?? this.folder;
    await this.openIn(folder, path);
  }

  private async openIn(folder: FolderRef | undefined, path: unknown): Promise<void> {
    if (typeof path !== 'string' || path === '') {
      return;
    }
    const file = resolveInFolders(openFolders(), folder, path);
    if (!file) {
      logInfo(`Panel: refused to open ${path} (outside the workspace)`);
      return;
    }
    const uri = vscode.Uri.file(file);
    try {
      await vscode.window.showTextDocument(uri, { preview: true });
    } catch (error) {
      logError(`Panel: could not open ${path}`, error);
    }
  }

  dispose(): void {
    clearTimeout(this.reviewTimer);
    if (this.runs.questions === this) {
      this.runs.questions = undefined;
    }
    for (const id of [...this.waiting.keys()]) {
      this.settle(id, null);
    }
    this.disposables.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}
