// Generated from agent/schema/protocol.schema.json by
// `python -m agentls.server.protocol_schema`: do not edit. Change the models in
// agent/contract.py or server/protocol.py and run the command again.

/** The method names of the protocol. */
export const Methods = {
  run: 'agent/run',
  cancel: 'agent/cancel',
  message: 'agent/message',
  messageDelivered: 'agent/messageDelivered',
  command: 'agent/command',
  notice: 'agent/notice',
  agents: 'agent/agents',
  commands: 'agent/commands',
  models: 'agent/models',
  attachCandidates: 'agent/attachCandidates',
  ping: 'agent/ping',
  sessions: 'agent/sessions',
  session: 'agent/session',
  checkpoints: 'agent/checkpoints',
  restore: 'agent/restore',
  worktrees: 'agent/worktrees',
  applyWorktree: 'agent/applyWorktree',
  discardWorktree: 'agent/discardWorktree',
  status: 'agent/status',
  stream: 'agent/stream',
  step: 'agent/step',
  subagent: 'agent/subagent',
  plan: 'agent/plan',
  context: 'agent/context',
  instructions: 'agent/instructions',
  askUser: 'agent/askUser',
  diagnostics: 'agent/diagnostics',
  navigate: 'agent/navigate',
  prepare: 'agent/prepare',
  workspaceTrust: 'agent/workspaceTrust',
  reviewDecision: 'agent/reviewDecision',
  approveProgram: 'agent/approveProgram',
  reviewAutoSave: 'agent/reviewAutoSave',
  reviewDelivery: 'agent/reviewDelivery',
  modelRequest: 'agent/modelRequest',
  modelPart: 'agent/modelPart',
  countTokens: 'agent/countTokens',
  editorModels: 'agent/editorModels',
} as const;

/** The requests the client sends: method → params and result. */
export interface ClientRequests {
  'agent/run': { params: RunParams; result: RunResult };
  'agent/cancel': { params: CancelParams; result: CancelResult };
  'agent/message': { params: MessageParams; result: MessageResult };
  'agent/agents': { params: FolderParams; result: AgentsResult };
  'agent/commands': { params: FolderParams; result: SlashCommandsResult };
  'agent/models': { params: FolderParams; result: ModelCatalog };
  'agent/attachCandidates': { params: AttachCandidatesParams; result: AttachCandidatesResult };
  'agent/ping': { params: NoParams; result: PingResult };
  'agent/sessions': { params: FolderParams; result: SessionsResult };
  'agent/session': { params: SessionParams; result: SessionResult };
  'agent/checkpoints': { params: CheckpointsParams; result: CheckpointsResult };
  'agent/restore': { params: RestoreParams; result: RestoreResult };
  'agent/worktrees': { params: FolderParams; result: WorktreesResult };
  'agent/applyWorktree': { params: WorktreeParams; result: ApplyWorktreeResult };
  'agent/discardWorktree': { params: DiscardWorktreeParams; result: DiscardWorktreeResult };
}

/** The notifications the client sends: method → params. */
export interface ClientNotifications {
  'agent/prepare': PrepareParams;
  'agent/workspaceTrust': WorkspaceTrustParams;
  'agent/reviewDecision': ReviewDecisionParams;
  'agent/reviewAutoSave': ReviewAutoSaveParams;
  'agent/modelPart': ModelPartParams;
}

/** The requests the server sends: method → params and result. */
export interface ServerRequests {
  'agent/askUser': { params: AskUserParams; result: AskUserResult };
  'agent/diagnostics': { params: DiagnosticsParams; result: DiagnosticsResult };
  'agent/navigate': { params: NavigateParams; result: NavigateResult };
  'agent/approveProgram': { params: ProgramApprovalParams; result: ProgramApprovalResult };
  'agent/modelRequest': { params: ModelRequestParams; result: ModelRequestResult };
  'agent/countTokens': { params: CountTokensParams; result: CountTokensResult };
  'agent/editorModels': { params: NoParams; result: EditorModelsResult };
}

/** The notifications the server sends: method → params. */
export interface ServerNotifications {
  'agent/messageDelivered': MessageDeliveredParams;
  'agent/command': CommandParams;
  'agent/notice': NoticeParams;
  'agent/status': StatusParams;
  'agent/stream': StreamParams;
  'agent/step': StepParams;
  'agent/subagent': SubagentParams;
  'agent/plan': PlanParams;
  'agent/context': ContextParams;
  'agent/instructions': InstructionsParams;
  'agent/reviewDelivery': ReviewDeliveryParams;
}

/** Every `AutoSaveMode`, in order. */
export const AutoSaveModeValues = ['off', 'afterDelay', 'onFocusChange', 'onWindowChange'] as const;
export type AutoSaveMode = (typeof AutoSaveModeValues)[number];

/** Every `ConfirmMode`, in order. */
export const ConfirmModeValues = ['yolo', 'confirm-all', 'confirm-sensitive'] as const;
export type ConfirmMode = (typeof ConfirmModeValues)[number];

/** Every `NavigateAction`, in order. */
export const NavigateActionValues = ['definition', 'references', 'hover', 'documentSymbols', 'workspaceSymbols', 'implementations', 'incomingCalls', 'outgoingCalls', 'rename'] as const;
export type NavigateAction = (typeof NavigateActionValues)[number];

/** Every `PlanStepStatus`, in order. */
export const PlanStepStatusValues = ['pending', 'in_progress', 'done'] as const;
export type PlanStepStatus = (typeof PlanStepStatusValues)[number];

/** Every `ReviewDeliveryState`, in order. */
export const ReviewDeliveryStateValues = ['waiting', 'told', 'unknown'] as const;
export type ReviewDeliveryState = (typeof ReviewDeliveryStateValues)[number];

/** Every `ReviewOutcome`, in order. */
export const ReviewOutcomeValues = ['kept', 'undone', 'changedByUser', 'pending'] as const;
export type ReviewOutcome = (typeof ReviewOutcomeValues)[number];

/** Every `RunState`, in order. */
export const RunStateValues = ['idle', 'preparing', 'model_running', 'tool_running', 'awaiting_human', 'completed', 'failed', 'aborted'] as const;
/** What a run is doing; `agent/status` reports every change. */
export type RunState = (typeof RunStateValues)[number];

/** Every `RunStatus`, in order. */
export const RunStatusValues = ['success', 'partial', 'failed'] as const;
export type RunStatus = (typeof RunStatusValues)[number];

/** Every `SelfEvalMode`, in order. */
export const SelfEvalModeValues = ['off', 'basic', 'full'] as const;
export type SelfEvalMode = (typeof SelfEvalModeValues)[number];

/** Every `SlashCommandSource`, in order. */
export const SlashCommandSourceValues = ['built-in', 'user', 'workspace'] as const;
export type SlashCommandSource = (typeof SlashCommandSourceValues)[number];

/** Every `StepPhase`, in order. */
export const StepPhaseValues = ['tool_start', 'tool_end'] as const;
export type StepPhase = (typeof StepPhaseValues)[number];

/** Every `SubagentPhase`, in order. */
export const SubagentPhaseValues = ['start', 'end'] as const;
export type SubagentPhase = (typeof SubagentPhaseValues)[number];

/** Every `SubagentStatus`, in order. */
export const SubagentStatusValues = ['success', 'partial', 'failed'] as const;
export type SubagentStatus = (typeof SubagentStatusValues)[number];

export interface AgentInfo {
  name: string;
  description: string;
  readOnly: boolean;
  /** Where the agent is defined: `built-in`, `config` (the settings' `agents:`), or its agent file (workspace-relative, e.g. `.claude/agents/x.md`, or `your agents/x.md` in the user config directory). */
  source: string;
}

/** `agent/agents` result. */
export interface AgentsResult {
  agents: AgentInfo[];
}

/**
 * `agent/applyWorktree` result: what became of the worktree's changes in the
 * user's tree (written as one agent edit: reviewed or confirmed like any other).
 */
export interface ApplyWorktreeResult {
  status: 'applied' | 'rejected' | 'partial' | 'stale' | 'failed' | 'conflict' | 'nothing';
  message: string;
  /** The files the change set touches. */
  files: string[];
  /** Files the user had changed too, merged with the worktree's changes (they touched different lines). */
  merged: string[];
  /** With `conflict`: files the user changed where the worktree did too; nothing was written. */
  conflicts: WorktreeConflict[];
  /** Applied as changes the user still keeps or undoes inline. */
  pending: boolean;
}

/**
 * What every entry has: the run that wrote it, the model call of the run it belongs
 * to and when it was written.
 */
export interface Entry {
  run_id: string;
  model_call_index: number;
  ts: number;
}

/** Written once per tool call of the model call, which `call_id` names. */
export interface OncePerToolCall extends Entry {
  call_id: string;
}

/** What a human decided about a tool call or the edits it made. */
export interface ApprovalDecision extends OncePerToolCall {
  type: 'approval_decision';
  tool: string;
  decision: string;
  message: string;
  args: Record<string, unknown>;
}

/** `agent/askUser` (a request to the client) params. */
export interface AskUserParams {
  runId: string;
  question: string;
  /** Text to start from, e.g. the command being edited. */
  default?: string;
}

/** `agent/askUser` result. */
export interface AskUserResult {
  /** Null: the user declined to answer. */
  answer?: string | null;
}

export interface AssistantMessage extends Entry {
  type: 'assistant_message';
  content?: string | null;
  tool_calls: StoredToolCall[];
  finish_reason: string;
  model?: string | null;
}

/** A file of the index, or a definition of the repo map, the user may attach. */
export interface AttachCandidate {
  kind: 'file' | 'symbol';
  /** Workspace-relative, with forward slashes. */
  path: string;
  /** symbol: its name (what `{kind: symbol}` takes). */
  name?: string;
  /** symbol: the line it is defined on. */
  line?: number;
  /** symbol: `function`, `class`, `method`... */
  symbolKind?: string;
  /** symbol: its signature. */
  detail: string;
}

/** `agent/attachCandidates` params: what the user typed after `@`. */
export interface AttachCandidatesParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  /** Matched fuzzily; empty lists the first. */
  query?: string;
  /** Most files, and most symbols, returned. */
  limit?: number;
}

/** `agent/attachCandidates` result: best first, the files then the symbols. */
export interface AttachCandidatesResult {
  items: AttachCandidate[];
  /** Why some are missing (no index, the symbols not ready yet). */
  notes: string[];
}

/** Something the user attaches to the prompt. */
export interface Attachment {
  kind: 'file' | 'symbol' | 'problems' | 'changes' | 'image';
  /** file: workspace-relative or absolute; problems: the one file whose problems are wanted (checked now if need be), absent for every file's known problems; image: a name to show. */
  path?: string | null;
  /** file: the first line (1-based). */
  startLine?: number | null;
  /** file: the last line. */
  endLine?: number | null;
  /** symbol: its name. */
  name?: string | null;
  /** image: the bytes, base64. */
  data?: string | null;
  /** image: `image/png`, `image/jpeg`... */
  mimeType?: string | null;
}

/** A model a run can use, with what is known of it. */
export interface AvailableModel {
  /** What `llm.model` and `agent/run`'s `model` take. */
  id: string;
  /** For pickers: "gpt-4o-mini (OpenAI)", "llama3.1 (local)". */
  label: string;
  /** `configured` (llm.model), `server` (what llm.api_base serves), `provider` (a provider whose key is set), `editor` (the editor's models). */
  source: 'configured' | 'server' | 'provider' | 'editor';
  /** Whether it can call tools; null: unknown. */
  tools: boolean | null;
  /** Whether it takes images; null: unknown. */
  images: boolean | null;
  /** Input tokens it takes; null: unknown. */
  contextWindow: number | null;
  /** US dollars; null: unknown. */
  inputCostPerToken: number | null;
  /** US dollars; null: unknown. */
  outputCostPerToken: number | null;
  /** "set OPENAI_API_KEY to use it", "no tool calling". */
  note: string;
}

/** `agent/cancel` params. */
export interface CancelParams {
  runId: string;
}

export interface CancelResult {
  /** False when no run of that id is in flight (finished, unknown, or already cancelled). */
  cancelled: boolean;
}

export interface CheckpointFile {
  path: string;
  change: 'created' | 'modified' | 'deleted';
}

/** A run (or a restore) and the files it changed. */
export interface CheckpointRun {
  runId: string;
  sessionId: string;
  kind: 'run' | 'restore';
  /** Seconds since the epoch of its first change. */
  at: number;
  /** For a restore: the run it went back before. */
  restores?: string;
  files: CheckpointFile[];
  /** With `sessionId`: what undoing this run would do now. */
  undo?: UndoPreview;
}

/** `agent/checkpoints` params. */
export interface CheckpointsParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  /** Only this session's runs. */
  sessionId?: string | null;
}

/** `agent/checkpoints` result: runs with checkpoints, newest first. */
export interface CheckpointsResult {
  runs: CheckpointRun[];
}

/**
 * `agent/command`: a command the agent runs, as it runs, for a client that mirrors
 * it (one that declares `experimental.agentls.commandOutput`). `started` names the
 * command, `output` pieces come in order, `ended` gives the exit code. Secrets are
 * masked in `command` and `text`.
 */
export interface CommandParams {
  runId: string;
  /** The tool call, as in `agent/step`. */
  callId: string;
  event: 'started' | 'output' | 'ended';
  /** `started`: the tool that runs it. */
  tool?: string;
  /** `started`: what runs, as approved. */
  command?: string;
  /** `output`: stdout and stderr interleaved. */
  text?: string;
  /** `ended`: the exit code; absent when the command was stopped. */
  exitCode?: number;
  /** `ended`: stopped by its time limit. */
  timedOut?: boolean;
}

export interface Compaction {
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * The user compacted the conversation (`/compact`): a later run's history starts
 * from this summary instead of the `replaced` messages before it.
 */
export interface CompactionEntry extends Entry {
  type: 'compaction';
  summary: string;
  replaced: number;
}

/**
 * `agent/context`: how full the model's context is, as each step's model call
 * starts; with `compacted` when the older steps were just compacted.
 */
export interface ContextParams {
  runId: string;
  step: number;
  /** Tokens of the conversation the model is sent. */
  used: number;
  /** The budget compaction keeps to (`context.max_context_tokens`). */
  limit: number;
  compacted?: Compaction;
}

/** The context manager changed what the model sees (summarised or dropped steps). */
export interface ContextUpdate extends Entry {
  type: 'context_update';
  kind: string;
  messages_before: number;
  messages_after: number;
}

/**
 * `agent/countTokens` (a request to the client): how many tokens each of `messages`
 * costs for the editor's model (its own counter). Only with
 * `experimental.agentls.editorModels`. The server asks only about messages it has not
 * counted yet.
 */
export interface CountTokensParams {
  vendor: string;
  model: string;
  messages: Record<string, unknown>[];
}

export interface CountTokensResult {
  /** One count per message, in order. */
  counts: number[];
}

export interface DiagnosticPosition {
  /** 0-based. */
  line: number;
  /** 0-based, in UTF-16 code units (LSP's default). */
  character: number;
}

export interface DiagnosticRange {
  start: DiagnosticPosition;
  end: DiagnosticPosition;
}

/**
 * `agent/diagnostics` (a request to the client) params: the editor's problems of
 * these documents, as it shows them now.
 */
export interface DiagnosticsParams {
  /** The documents asked about; empty: every document the editor has problems for. */
  uris: string[];
}

/**
 * `agent/diagnostics` result: one entry per document asked about (a document with
 * no problems may be left out).
 */
export interface DiagnosticsResult {
  items: DocumentDiagnostics[];
}

/** `agent/discardWorktree` params. */
export interface DiscardWorktreeParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  name: string;
  /** Keep its branch `agentls/<name>`. */
  keepBranch?: boolean;
  /** Discard it even while it holds changes nobody committed (they are lost). */
  force?: boolean;
}

export interface DiscardWorktreeResult {
  discarded: boolean;
}

export interface DocumentDiagnostics {
  uri: string;
  diagnostics: EditorDiagnostic[];
  /** Optional: how many times the editor's problems of this document were set so far; lets the server see a language server publish the same problems again for the new text. */
  updates?: number | null;
}

/**
 * One problem, in the shape of LSP's `Diagnostic` (its other fields, such as
 * `tags` or `relatedInformation`, may be sent and are ignored).
 */
export interface EditorDiagnostic {
  range: DiagnosticRange;
  /** 1 error, 2 warning, 3 information, 4 hint; absent: error. */
  severity?: number | null;
  code?: number | string | null;
  /** Who reports it, e.g. `Pylance`, `ts`. */
  source?: string | null;
  message: string;
  [key: string]: unknown;
}

/** One of the editor's models, as the editor describes it. */
export interface EditorModel {
  vendor: string;
  id: string;
  name: string;
  family?: string;
  maxInputTokens?: number | null;
}

/**
 * `agent/editorModels` result (a request to the client, no params; only with
 * `experimental.agentls.editorModels`): the models the editor offers now. They are
 * used as `editor/<vendor>/<id>`.
 */
export interface EditorModelsResult {
  models: EditorModel[];
}

/**
 * Params of a request about one workspace folder that takes nothing else
 * (`agent/agents`, `agent/sessions`, `agent/worktrees`...): `{folder?}`.
 */
export interface FolderParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
}

/**
 * What the user decided about one hunk under inline review (`pending`: a decision
 * taken back, e.g. an undo undone with Ctrl+Z: the hunk waits for the user again).
 */
export interface HunkDecision {
  /** The hunk's change annotation id. */
  id: string;
  outcome: ReviewOutcome;
  /** For `changedByUser`: the region's text now. */
  text?: string | null;
  /** The region's 0-based first line in the document now. */
  line?: number | null;
}

/** `agent/instructions`: the instruction files the model was given (AGENTS.md...). */
export interface InstructionsParams {
  runId: string;
  /** Workspace-relative paths, in the order read. */
  files: string[];
  /** True: these joined during the run, as it reached their folders (the others were given at its start). */
  joined?: boolean;
}

/** `agent/messageDelivered`: messages sent with `agent/message` reached the model. */
export interface MessageDeliveredParams {
  runId: string;
  messageIds: string[];
}

/** `agent/message` params: the user writes to a run while it works. */
export interface MessageParams {
  runId: string;
  text: string;
  /** queue: the model reads it before its next call; steer: the model call in flight is cut (its text void) and made again with the message. */
  mode?: 'queue' | 'steer';
}

export interface MessageResult {
  /** False when the run cannot take it; `reason` says why. */
  accepted: boolean;
  /** Named again in `agent/messageDelivered` once the model has it. */
  messageId?: string;
  reason?: string;
}

/** `agent/models` result: the models that can be used now. */
export interface ModelCatalog {
  /** The model a run would use now. */
  current: string;
  models: AvailableModel[];
  /** One line each: "the model server at … did not answer: …". */
  problems: string[];
}

/**
 * The user chose the session's model (`/model <id>`): the next runs use it unless a
 * run names its own. `model` None: back to the agent's or the config's.
 */
export interface ModelChoiceEntry extends Entry {
  type: 'model_choice';
  model?: string | null;
}

/**
 * `agent/modelPart` (a notification from the client): one part of the answer to
 * the `agent/modelRequest` of `token`: a piece of text or one tool call.
 */
export interface ModelPartParams {
  token: string;
  text?: string | null;
  toolCall?: ModelToolCall | null;
}

/**
 * `agent/modelRequest` (a request to the client): answer these messages with one
 * of the editor's models (VS Code's `vscode.lm`). Sent only to clients that declare
 * `experimental.agentls.editorModels`. The answer streams: the client sends each part
 * as an `agent/modelPart` notification with this `token`, then answers the request
 * (after its last part). `$/cancelRequest` on it: the run stopped, cancel the call.
 * An error answer (no consent, the model is gone) fails the run with its message.
 */
export interface ModelRequestParams {
  /** Names this call in its `agent/modelPart`s. */
  token: string;
  /** The model's vendor (`copilot`). */
  vendor: string;
  /** The model's id at that vendor (`gpt-4o`). */
  model: string;
  /** The conversation, OpenAI-style: `{role: system|user|assistant|tool, content, tool_calls?, tool_call_id?}`. */
  messages: Record<string, unknown>[];
  /** The tools the model may call, OpenAI-style: `{type: function, function: {name, description, parameters}}`. */
  tools: Record<string, unknown>[];
}

/** `agent/modelRequest` result: the call finished (every part was sent before). */
export interface ModelRequestResult {
  /** `stop`, `tool_calls`; absent: the server infers it. */
  finishReason?: string | null;
  /** `{prompt_tokens, completion_tokens, total_tokens}` when known. */
  usage?: Record<string, unknown> | null;
}

/** A tool call the model made, whole. */
export interface ModelToolCall {
  /** The call's id, echoed by the tool's result message. */
  id: string;
  name: string;
  arguments?: Record<string, unknown>;
}

/** A caller (incomingCalls) or a callee (outgoingCalls), and where the calls are. */
export interface NavCall {
  symbol: NavSymbol;
  /** The calls: in the caller (incomingCalls), in the asked function (outgoingCalls). */
  sites?: NavLocation[];
}

/** A place in a document, as LSP's `Location`. */
export interface NavLocation {
  uri: string;
  range: DiagnosticRange;
}

export interface NavSymbol {
  name: string;
  /** LSP's SymbolKind (5 class, 6 method, 12 function...). */
  kind: number;
  uri: string;
  /** The symbol's name (LSP's selectionRange). */
  range: DiagnosticRange;
  /** The enclosing symbols' names, outermost first (`Store` for `Store.save`). */
  container?: string[];
  detail?: string | null;
}

export interface NavTextEdit {
  range: DiagnosticRange;
  newText: string;
}

/**
 * A rename's edits per document, as LSP's `WorkspaceEdit.changes` (not applied by
 * the editor: the server applies them as one reviewed change).
 */
export interface NavWorkspaceEdit {
  changes: Record<string, NavTextEdit[]>;
}

/**
 * `agent/navigate` (a request to the client) params: a question about the code that
 * the editor answers from its own providers (VS Code's `vscode.execute*Provider`).
 */
export interface NavigateParams {
  action: NavigateAction;
  /** The document asked about; workspaceSymbols: a document of the language. */
  uri: string;
  /** Where the symbol is (not sent for workspaceSymbols). */
  position?: DiagnosticPosition;
  /** workspaceSymbols: the name looked for. */
  query?: string;
  /** rename: the symbol's new name. */
  newName?: string;
}

/**
 * `agent/navigate` result. `answered: false`: the editor has no answer for that
 * document and question (no provider; VS Code cannot tell that from an empty answer, so
 * it sends this for both): the language servers agentls starts are asked instead.
 */
export interface NavigateResult {
  answered: boolean;
  /** Who answered, e.g. `VS Code`, `Neovim (pyright)`. */
  by?: string | null;
  locations?: NavLocation[];
  /** hover: the text shown, markdown. */
  hover?: string | null;
  symbols?: NavSymbol[];
  calls?: NavCall[];
  /** rename: the edits, not applied. */
  edit?: NavWorkspaceEdit | null;
}

/** Params of a request that takes none: `{}` (the server ignores what is sent). */
export type NoParams = Record<string, never>;

/**
 * News from the front end that the model was given just before a run's prompt (what
 * the user decided about earlier edits since the model last heard): told as a user
 * message, kept apart from the user's own words.
 */
export interface NoteEntry extends Entry {
  type: 'note';
  content: string;
}

/**
 * `agent/notice`: what a run tells the user besides its work (settings of an
 * untrusted folder that were ignored, no sandbox, an MCP server that did not start), for
 * a client that shows it beside the run (one that declares
 * `experimental.agentls.notices`). Every client also gets it as `window/logMessage`.
 */
export interface NoticeParams {
  runId: string;
  level: 'error' | 'warning' | 'info';
  message: string;
}

/** `agent/ping` result. */
export interface PingResult {
  pong: true;
  /** Runs in flight. */
  runs: number;
  /** The model worker is up and has loaded litellm. */
  llmReady: boolean;
  /** A model worker process is up (it may still be loading litellm); it starts at `agent/prepare` or the first run and ends after `llm.worker_idle_seconds`. */
  workerRunning: boolean;
  /** The index is built and its file watcher runs. */
  watching: boolean;
  /** Text files in the index; null before it is built. */
  indexedFiles: number | null;
  /** This process imported litellm (it should not: the worker makes the calls). */
  litellmLoaded: boolean;
  /** This process imported a tokenizer (it should not: the worker counts tokens). */
  tokenizerLoaded: boolean;
  /** This process loaded a tree-sitter grammar (it should not: the symbol process parses). */
  parserLoaded: boolean;
}

/** The plan as the agent last sent it (`update_plan`): the goal and every step. */
export interface PlanEntry extends Entry {
  type: 'plan';
  goal: string;
  steps: Record<string, string>[];
}

/** `agent/plan`: the agent's plan, whole, each time it changes. */
export interface PlanParams {
  runId: string;
  goal: string;
  steps: PlanStep[];
}

export interface PlanStep {
  text: string;
  status: PlanStepStatus;
}

/**
 * `agent/prepare` params: `{}`. The user is about to run the agent (a panel
 * opened, a prompt is being typed): the server starts its model worker now.
 */
export type PrepareParams = Record<string, never>;

/**
 * `agent/approveProgram` (a request to the client): may this program, which the
 * workspace declares, run? An MCP server before it starts, a workspace file's hooks at
 * the start of a run in a trusted folder: each that the user has not approved in this
 * exact form. Sent only to clients that declare `experimental.agentls.approveProgram`
 * (others are asked with `window/showMessageRequest`). An approval is stored for this
 * exact definition, as `agentls mcp approve` / `agentls hooks approve` store it; a
 * refusal holds while the server runs; a changed definition asks again. Every text is
 * shown as is: the server has already made hidden characters visible (`\u202e`).
 */
export interface ProgramApprovalParams {
  /** `mcp_server`: an MCP server; `hooks`: the hooks of one file. */
  kind: 'mcp_server' | 'hooks';
  /** The server's name; for hooks, the file that declares them. */
  name: string;
  /** The file that declares it: `.mcp.json`, ... */
  source: string;
  /** The question in one line: `Allow the MCP server "github" to start?`. */
  headline: string;
  /** What it runs, line by line: each value or command as written, which of the user's environment variables a value reads (`(reads your $GITHUB_TOKEN)`), and each workspace file it runs or reads with a fingerprint. */
  lines: string[];
  /** The workspace files it runs or reads, each with a fingerprint of its contents (`srv.py (sha256 9f2c41d07be3)`), which the approval covers. */
  files: string[];
  /** What allowing it means, to show with the question. */
  warning: string;
  /** The user approved another definition of it before. */
  changed: boolean;
}

/** `agent/approveProgram` result. */
export interface ProgramApprovalResult {
  approved: boolean;
}

/**
 * The user put the workspace back before `restores` (undoing it and the session's
 * later runs); `run_id` is the restore's own id, so the restore can be undone too.
 */
export interface RestoreEntry extends Entry {
  type: 'restore';
  restores: string;
  status: string;
  restored: string[];
  conflicts: string[];
  unrestorable: Record<string, string>[];
}

/** `agent/restore` params. */
export interface RestoreParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  runId: string;
  /** Overwrite files changed since the runs too. */
  force?: boolean;
}

/** `agent/restore` result. */
export interface RestoreResult {
  runId: string;
  /** The restore's own run id (restoring it undoes the restore). */
  restoreRunId?: string | null;
  status: 'applied' | 'rejected' | 'nothing' | 'failed' | 'stale' | 'partial';
  message: string;
  restored: string[];
  /** Files changed since the runs, left as they are. */
  conflicts: string[];
  unrestorable: Unrestorable[];
}

/**
 * `agent/reviewAutoSave` (a notification to the server, sent before the client
 * answers an edit it reviews inline): how the editor's auto-save treats a file of that
 * edit, so that the tool result tells the model what is on disk.
 */
export interface ReviewAutoSaveParams {
  uri: string;
  /** The document's version once the edit is applied. */
  version: number;
  /** The editor's auto-save for this file. */
  mode: AutoSaveMode;
  /** The editor has already saved the file with the edit in it. */
  saved?: boolean;
}

/**
 * `agent/reviewDecision` (a notification to the server): the user kept, undid or
 * changed hunks of an agent edit under inline review.
 */
export interface ReviewDecisionParams {
  uri: string;
  /** The document's version after the decisions. */
  version: number;
  /** The run that made the edit. */
  runId?: string | null;
  hunks?: HunkDecision[];
  /** The file was saved after its last hunk was decided. */
  saved?: boolean;
  /** Saving changed the text (format on save, trimmed whitespace...). */
  changedOnSave?: boolean;
  /** The agent created the file and the user undid all of it: the file was deleted. */
  deleted?: boolean;
}

/**
 * `agent/reviewDelivery` (a notification to the client): what became of review
 * decisions it sent.
 */
export interface ReviewDeliveryParams {
  /** The hunks' ids. */
  hunks: string[];
  /** `waiting`: for the next model call of `sessionId` (its run in flight `runId`, else its next run, or the next run of any other session); `told`: the model of run `runId` has heard the hunks' current state (`note`: the text it was given; absent when it had heard it before); `unknown`: this server does not know the hunks (made by another server process), so no model will hear of them. */
  state: ReviewDeliveryState;
  runId?: string;
  sessionId?: string;
  /** `told`: exactly what the model was given. */
  note?: string;
  /** `told`: the run that heard is of another session than the edit's; the edit's own session still hears it when continued. */
  otherSession: boolean;
}

/**
 * How the run ended: its status, its last state and its output (at most 4,000
 * characters).
 */
export interface RunFinishEntry extends Entry {
  type: 'run_finish';
  status: string;
  state: string;
  output: string;
  instructions: string[];
}

/** `agent/run` params. */
export interface RunParams {
  /** The task. */
  prompt: string;
  /** An agent from `agent/agents` (`build`, `plan`, `review`, `mixed`, custom). */
  agent?: string;
  /** Id used in every notification of this run; generated when absent. */
  runId?: string | null;
  /** The conversation to continue; a new one when absent. One run in flight per session. */
  sessionId?: string | null;
  /** The model for this run (an id of `agent/models`, as `llm.model` takes it); the session's `/model` choice, else the agent's or the config's, when absent. */
  model?: string | null;
  /** Approval policy for this run; the agent's when absent. */
  confirmMode?: ConfirmMode | null;
  /** Loop iterations allowed; the agent's when absent. */
  maxSteps?: number | null;
  /** Self-evaluation of the result; the config's when absent. */
  selfEval?: SelfEvalMode | null;
  /** Sensitive tools describe instead of acting. */
  dryRun?: boolean;
  /** The file (or folder) the user is working in, absolute or workspace-relative: the AGENTS.md files from the root down to its folder apply. */
  activeFile?: string | null;
  /** Files, symbols, the changes, images for the prompt. */
  attachments?: Attachment[];
  /** Stop the run (partial) once its model calls used this many tokens. */
  tokenBudget?: number | null;
  /** The workspace folder the run works in (its URI): its settings, trust, index, instructions, sessions, checkpoints and worktrees; every tool confined to it. Absent: the folder that holds `activeFile` when that is an absolute path inside one, else the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  /** Report progress on this token instead of creating one. */
  workDoneToken?: number | string | null;
  /** Work in a git worktree of its own, not in the user's tree: its edits are written there (no review), committed on its branch at the end, and applied to the user's tree only by `agent/applyWorktree`. */
  worktree?: WorktreeOption | null;
}

/** The result of `agent/run` (and of `agentls run --json`). */
export interface RunResult {
  /** `partial`: cancelled, step limit, or aborted in an approval; `failed`: model or internal error (`output` says why). */
  status: RunStatus;
  /** The agent's final answer, or why the run ended. */
  output: string;
  /** Loop iterations done. */
  steps: number;
  tools_used: ToolUse[];
  duration_seconds: number;
  model: string | null;
  runId: string;
  sessionId: string;
  /** Tokens of every model call of the run. */
  usage: Usage;
  /** The instruction files the model was given (AGENTS.md...), in order. */
  instructions: string[];
  /** The worktree the run worked in (its changes committed on its branch), when it was asked to work in one. */
  worktree?: WorktreeInfo | null;
  /** The URI of the workspace folder the run worked in (language server only). */
  folder?: string | null;
}

/** A run began: the prompt it was given and the agent that ran it. */
export interface RunStartEntry extends Entry {
  type: 'run_start';
  prompt: string;
  agent: string;
  instructions: string[];
  model?: string | null;
}

export type SessionEntry = RunStartEntry | UserMessage | NoteEntry | AssistantMessage | ToolCallEntry | ToolResultEntry | ApprovalDecision | ContextUpdate | PlanEntry | RunFinishEntry | CompactionEntry | ModelChoiceEntry | RestoreEntry | SubagentEntry;

/** One stored conversation, as `agent/sessions` and `agentls sessions --json` list it. */
export interface SessionInfo {
  sessionId: string;
  /** The first prompt, on one line, shortened. */
  title: string;
  /** Last write, seconds since the epoch. */
  updated: number;
  /** The last run's status (`success`, `partial`, `failed`), `interrupted` when it never finished (the server died), `empty` when the session has no run. */
  status: string;
  runs: number;
  entries: number;
}

/** `agent/session` params. */
export interface SessionParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  sessionId: string;
}

/** `agent/session` result: every stored entry, for a client to render the history. */
export interface SessionResult {
  sessionId: string;
  /** Typed by `type`; snake_case, as stored. */
  entries: SessionEntry[];
  /** A partial last line (a crash mid-write) was ignored. */
  torn: boolean;
}

/** `agent/sessions` result, newest first. */
export interface SessionsResult {
  sessions: SessionInfo[];
}

/** A `/name` command a prompt may start with. */
export interface SlashCommandInfo {
  /** Without the `/`. */
  name: string;
  description: string;
  /** What to type after the name (its `argument-hint`, else its `${input:...}` names as `name=<placeholder>`); empty when it takes nothing. */
  hint: string;
  source: SlashCommandSource;
  /** The prompt file it comes from: workspace-relative, or `your ...` for one in the user config directory; empty for a built-in. */
  path: string;
}

/** `agent/commands` result: by name. */
export interface SlashCommandsResult {
  commands: SlashCommandInfo[];
  /** Prompt files that were skipped or partly ignored, and why. */
  problems: string[];
}

/** `agent/status`: the run changed state. */
export interface StatusParams {
  runId: string;
  state: RunState;
  /** Why the run failed, aborted or ended partial. */
  detail?: string;
  /** With `preparing`: the model that answers the steps starting now (in `mixed` mode the planner's, then the builder's). */
  model?: string;
}

/** `agent/step`: a tool call starts or ends. */
export interface StepParams {
  runId: string;
  step: number;
  maxSteps: number;
  phase: StepPhase;
  tool: string;
  callId: string;
  /** Scalars and short one-line strings only, never file contents. */
  args: Record<string, unknown>;
  /** With `tool_end`. */
  success?: boolean;
  /** With `tool_end`. */
  summary?: string;
  /** The context meter as this step's model call started: tokens used. */
  contextUsed?: number;
  /** The context budget those tokens fill (`context.max_context_tokens`). */
  contextLimit?: number;
  /** A subagent's tool call: the `delegate` call of the run it is nested under (`step`/`maxSteps` are then the subagent's own). */
  parentCallId?: string;
  /** With `parentCallId`: the subagent's name. */
  agent?: string;
}

export interface StoredToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * `agent/stream`: the model's text as it is written; concatenated in `seq`
 * order it is exactly the model's text.
 */
export interface StreamParams {
  runId: string;
  /** 1, 2, 3... per run. */
  seq: number;
  text: string;
  /** The model's stream was cut and its call starts again: this step's text so far is void. */
  restart?: boolean;
  /** How many characters of this step's text are void. */
  discard?: number;
  /** Why the stream restarts. */
  reason?: string;
  /** The attempt that now starts. */
  attempt?: number;
}

/**
 * A subagent the run started (`call_id`: the parent's `delegate` call) ended: who it
 * was, what it was asked, how it ended, what it spent and its report (at most 4,000
 * characters). The report the parent read is the call's tool result; this keeps the rest.
 */
export interface SubagentEntry extends OncePerToolCall {
  type: 'subagent';
  agent: string;
  task: string;
  status: string;
  steps: number;
  model?: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  report: string;
}

/**
 * `agent/subagent`: a subagent the run handed a task to (its `delegate` tool call
 * `callId`) starts or ends; its tool calls come as `agent/step` with
 * `parentCallId`.
 */
export interface SubagentParams {
  runId: string;
  /** The run's `delegate` tool call the subagent works under. */
  callId: string;
  agent: string;
  phase: SubagentPhase;
  /** With `start`: the task it was given. */
  task?: string;
  /** With `start`: the model that answers it. */
  model?: string;
  /** With `start`: true when the run goes on without waiting for it. */
  background?: boolean;
  /** With `end`. */
  status?: SubagentStatus;
  /** With `end`: the opening of its report. */
  summary?: string;
  /** With `end`: the steps it took. */
  steps?: number;
  /** With `end`: the tokens it used. */
  usage?: Usage;
}

/** The call and its result, each of which names the tool. */
export interface ToolCallPart extends OncePerToolCall {
  name: string;
}

/** Written just before the engine gets the call: the call may have started. */
export interface ToolCallEntry extends ToolCallPart {
  type: 'tool_call';
  arguments: Record<string, unknown>;
}

/** A tool call ended: whether it succeeded and what the model was told. */
export interface ToolResultEntry extends ToolCallPart {
  type: 'tool_result';
  success: boolean;
  content: string;
}

/** One tool call of a run, as the result lists it. */
export interface ToolUse {
  name: string;
  /** The arguments, long strings shortened. */
  args: Record<string, unknown>;
  success: boolean;
}

/** What `agent/restore` of a run would do now (files as workspace-relative paths). */
export interface UndoPreview {
  /** Files the undo would write back. */
  restores: string[];
  /** Of those, files where the user already undid part of the runs' changes: only the rest goes back. */
  partlyUndone: string[];
  /** Files changed since the runs in other ways: the undo leaves them as they are. */
  changedSince: string[];
}

export interface Unrestorable {
  path: string;
  reason: string;
}

/**
 * Token counts of one call, or the sum of several; `cost` in US dollars when the
 * price of every call that used tokens is known (litellm's price list), else None.
 *
 * `cached_tokens` is the part of `prompt_tokens` the provider served from its
 * prompt cache (OpenAI's `prompt_tokens_details.cached_tokens`, Anthropic's
 * `cache_read_input_tokens`), which is billed at a fraction of the price.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost?: number | null;
  /** Prompt tokens read from the provider's cache. */
  cached_tokens: number;
}

export interface UserMessage extends Entry {
  type: 'user_message';
  content: string;
}

/**
 * `agent/workspaceTrust` (a notification to the server): the editor's own trust
 * model changed its verdict on the folder (VS Code: the user granted Workspace Trust).
 */
export interface WorkspaceTrustParams {
  trusted: boolean;
}

export interface WorktreeConflict {
  path: string;
  reason: string;
}

/**
 * A worktree session: a copy of the repository on its own branch where runs work
 * without touching the user's tree.
 */
export interface WorktreeInfo {
  name: string;
  branch: string;
  path: string;
  /** The commit it started from (HEAD plus the user's changes). */
  base: string;
  /** Seconds since the epoch. */
  created: number;
  /** `running`: a run of this server works in it now; `uncommitted changes`: a run left changes not committed on its branch; `missing`: its folder is gone. */
  state: 'ready' | 'uncommitted changes' | 'missing' | 'running';
  /** Files its branch changed since the base. */
  files: number;
  added: number;
  removed: number;
}

/** Where a run that works in a worktree of its own works. */
export interface WorktreeOption {
  /** The worktree (branch `agentls/<name>`): continued when it exists, else made from HEAD plus the uncommitted changes; none: a new one named after a fresh id. */
  name?: string | null;
}

/** `agent/applyWorktree` params. */
export interface WorktreeParams {
  /** The workspace folder, by its URI as the client sent it in `initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the first folder. A URI that is none of the folders is InvalidParams. */
  folder?: string | null;
  name: string;
}

/**
 * `agent/worktrees` result: the worktree sessions of the workspace's repository,
 * oldest first.
 */
export interface WorktreesResult {
  worktrees: WorktreeInfo[];
}
