/**
 * The agent panel's view model: a pure reducer from what the server says (run notifications,
 * approvals, questions, results, stored sessions) to the conversation the panel shows. No DOM,
 * no vscode: the extension keeps one copy (the truth, sent whole to a fresh webview) and the
 * webview applies the same actions to its own copy, so both always agree.
 */
import type { FolderRef } from '../folders';
import type {
  Compaction,
  ContextParams,
  InstructionsParams,
  MessageDeliveredParams,
  NoticeParams,
  PlanParams,
  PlanStep,
  PlanStepStatus,
  RestoreResult,
  RunResult,
  SessionEntry,
  StatusParams,
  StepParams,
  StreamParams,
  SubagentParams,
  UndoPreview,
} from '../protocol';

/** One tool call of a subagent, shown in the `delegate` card it works under. */
export interface SubagentStep {
  callId: string;
  tool: string;
  summary: string;
  state: 'running' | 'done' | 'failed' | 'interrupted';
  result?: string;
  step?: number;
  maxSteps?: number;
}

/** What a `delegate` card shows of its subagent (agent/subagent and the steps nested under it). */
export interface SubagentRun {
  agent: string;
  task?: string;
  model?: string;
  background?: boolean;
  steps: SubagentStep[];
  /** Set when it ended (agent/subagent `end`); `interrupted`: the run ended first. */
  status?: 'success' | 'partial' | 'failed' | 'interrupted';
  /** The opening of its report. */
  report?: string;
  stepCount?: number;
  tokens?: number;
  promptTokens?: number;
  completionTokens?: number;
}

/** A run's end: the live result, or what a stored session recorded of it (less). */
export type RunEnd = Pick<RunResult, 'status'> & Partial<RunResult>;

export type Item =
  | {
      kind: 'user';
      id: string;
      rev: number;
      runId: string;
      text: string;
      agent?: string;
      /** The name of the folder the run worked in, when the workspace has several. */
      folder?: string;
      /** The instruction files the model was given (AGENTS.md...), in the order read. */
      instructions?: string[];
      /** The models that answered, in order (mixed mode: the planner's, then the builder's). */
      models?: string[];
    }
  | { kind: 'text'; id: string; rev: number; runId: string; text: string; streaming: boolean }
  | {
      kind: 'tool';
      id: string;
      rev: number;
      runId: string;
      callId: string;
      tool: string;
      args: Record<string, unknown>;
      summary: string;
      step?: number;
      maxSteps?: number;
      state: 'running' | 'done' | 'failed' | 'interrupted';
      result?: string;
      /** A file the tool changed: the card links to its review. */
      path?: string;
      /** The tool ran a command that the run's terminal shows: the card links to it. */
      terminal?: boolean;
      /** A `delegate` call: the subagent working under it, nested in the card. */
      subagent?: SubagentRun;
    }
  | {
      kind: 'approval';
      id: string;
      rev: number;
      runId: string;
      message: string;
      actions: string[];
      answer?: string;
    }
  | {
      kind: 'ask';
      id: string;
      rev: number;
      runId: string;
      question: string;
      default?: string;
      answered: boolean;
      answer?: string | null;
    }
  | { kind: 'plan'; id: string; rev: number; runId: string; goal: string; steps: PlanStep[] }
  | {
      /** What the user wrote to a run while it worked (agent/message). */
      kind: 'message';
      id: string;
      rev: number;
      runId: string;
      messageId: string;
      text: string;
      mode: 'queue' | 'steer';
      /** queued until agent/messageDelivered names it; a run that ends first leaves it undelivered. */
      state: 'queued' | 'delivered' | 'undelivered';
    }
  | { kind: 'compaction'; id: string; rev: number; runId: string; step: number; compacted: Compaction }
  /** What the run told the user besides its work (agent/notice): ignored settings, no sandbox... */
  | { kind: 'notice'; id: string; rev: number; runId: string; level: NoticeParams['level']; message: string }
  | {
      kind: 'end';
      id: string;
      rev: number;
      runId: string;
      status: string;
      detail?: string;
      steps?: number;
      tokens?: number;
      promptTokens?: number;
      completionTokens?: number;
      cost?: number;
      seconds?: number;
    }
  | {
      /** What the model of run `runId` was told about the user's review of the agent's
       * edits, exactly (`note`), under a title in the user's words. */
      kind: 'review';
      id: string;
      rev: number;
      runId: string;
      summary: string;
      note: string;
      otherSession?: boolean;
    }
  | {
      /** The user undid a run (and the session's later ones): what went back. */
      kind: 'restore';
      id: string;
      rev: number;
      /** The restore's own run id: undoing it brings the runs' work back. */
      runId: string;
      restores: string;
      status: string;
      restored: string[];
      conflicts: string[];
      unrestorable: { path: string; reason: string }[];
    };

export interface Conversation {
  /** The session the next run continues (undefined: a new session). */
  sessionId?: string;
  /** The workspace folder the conversation works in: its session's record lives there, so
   * every run of it works there (undefined: no run yet, the next run's folder is chosen). */
  folder?: FolderRef;
  /** A past session shown from its record: no prompt until the user continues it. */
  readOnly: boolean;
  items: Item[];
  /** The run in flight, if any. */
  runId?: string;
  state?: string;
  stepText?: string;
  /** The latest agent/context of the run in flight (or of the last run): the header's meter. */
  context?: { runId: string; used: number; limit: number };
  /** Runs of the session that changed files (agent/checkpoints): each gets an undo button. */
  undoable?: string[];
  /** What undoing each of them would do now (agent/checkpoints' `undo`). */
  undoPreviews?: Record<string, UndoPreview>;
  /** Bumps on every change; the renderer compares it to skip idle frames. */
  rev: number;
}

export type Action =
  | { type: 'runStarted'; runId: string; sessionId?: string; prompt: string; agent?: string; folder?: FolderRef; folderName?: string }
  | { type: 'status'; params: StatusParams }
  | { type: 'stream'; params: StreamParams }
  | { type: 'step'; params: StepParams }
  | { type: 'subagent'; params: SubagentParams }
  | { type: 'plan'; params: PlanParams }
  | { type: 'instructions'; params: InstructionsParams }
  | { type: 'notice'; params: NoticeParams }
  | { type: 'approval'; id: string; runId: string; message: string; actions: string[] }
  | { type: 'approvalAnswered'; id: string; answer: string }
  | { type: 'ask'; id: string; runId: string; question: string; default?: string }
  | { type: 'askAnswered'; id: string; answer: string | null }
  | { type: 'messageQueued'; runId: string; messageId: string; text: string; mode: 'queue' | 'steer' }
  | { type: 'messageDelivered'; params: MessageDeliveredParams }
  | { type: 'context'; params: ContextParams }
  /** A tool call started a command, mirrored in the run's terminal (agent/command). */
  | { type: 'commandStarted'; runId: string; callId: string }
  | { type: 'runEnded'; runId: string; result?: RunEnd; error?: string; cancelled: boolean }
  | { type: 'sessionLoaded'; sessionId: string; entries: SessionEntry[]; folder?: FolderRef }
  | { type: 'continueSession' }
  | { type: 'newSession' }
  | { type: 'checkpoints'; runIds: string[]; previews?: Record<string, UndoPreview> }
  /** `beforePrompt`: it was told before the run's prompt (unset: guessed, it was if the run
   * has shown nothing yet). */
  | { type: 'reviewTold'; runId: string; summary: string; note: string; otherSession?: boolean; beforePrompt?: boolean }
  | { type: 'restored'; result: Pick<RestoreResult, 'runId' | 'restoreRunId' | 'status' | 'restored' | 'conflicts' | 'unrestorable'> };

export const EDIT_TOOLS = new Set(['edit_file', 'write_file', 'delete_file', 'apply_patch']);

/** How the server starts a note about the user's review (server/inline_review.py). */
export const REVIEW_NOTE_HEADER = 'The user reviewed ';

export function emptyConversation(): Conversation {
  return { readOnly: false, items: [], rev: 0 };
}

/** The subagent an approval question is for (server/approver.py names it after the tool:
 * "agentls wants to run grep (subagent explore)."); undefined: the run's own agent. */
export function approvalSubagent(message: string): string | undefined {
  return /^agentls wants to run \S+ \(subagent ([^)\n]+)\)\./.exec(message)?.[1];
}

/** Who asks a question of `ask_user`: a subagent's come prefixed with its name
 * ("[explore] Which file?"), the run's own agent's not. */
export function askedBy(question: string): { subagent?: string; text: string } {
  const named = /^\[([^\]\n]+)\] /.exec(question);
  return named ? { subagent: named[1], text: question.slice(named[0].length) } : { text: question };
}

/** A one-line summary of a tool call's arguments ("path=src/app.py, line=3"). */
export function argsSummary(args: Record<string, unknown> | undefined, max = 80): string {
  if (!args) {
    return '';
  }
  const parts: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) {
      continue;
    }
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(`${key}=${shown}`);
  }
  const line = parts.join(', ').replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function pathOf(tool: string, args: Record<string, unknown> | undefined): string | undefined {
  if (!EDIT_TOOLS.has(tool) || !args) {
    return undefined;
  }
  for (const key of ['path', 'file', 'file_path', 'filePath']) {
    const value = args[key];
    if (typeof value === 'string' && value !== '') {
      return value;
    }
  }
  return undefined;
}

function costOf(usage: Record<string, unknown> | undefined): number | undefined {
  const cost = usage?.['cost'];
  return typeof cost === 'number' && Number.isFinite(cost) ? cost : undefined;
}

/** `files` added to `known`, in order, each once. */
export function mergeInstructions(known: readonly string[] | undefined, files: readonly string[]): string[] {
  const merged = [...(known ?? [])];
  for (const file of files) {
    if (!merged.includes(file)) {
      merged.push(file);
    }
  }
  return merged;
}

/** One instruction file in a run's header. */
export interface InstructionLink {
  label: string;
  /** The workspace file to open; undefined for the user's own AGENTS.md (`your AGENTS.md`), which lies outside it. */
  path?: string;
}

/** What a run's header shows of its instruction files: nothing when there are none. */
export function instructionLinks(files: readonly string[] | undefined): InstructionLink[] {
  return (files ?? []).map((label) => (label.startsWith('your ') ? { label } : { label, path: label }));
}

/** The run's header (its user item) with `files` among its instruction files. */
function withInstructions(items: Item[], runId: string, files: readonly string[]): Item[] {
  const i = items.findIndex((it) => it.kind === 'user' && it.runId === runId);
  if (i < 0 || files.length === 0) {
    return items;
  }
  const user = items[i] as Extract<Item, { kind: 'user' }>;
  const instructions = mergeInstructions(user.instructions, files);
  if (instructions.length === (user.instructions ?? []).length) {
    return items;
  }
  const copy = items.slice();
  copy[i] = { ...user, instructions, rev: user.rev + 1 };
  return copy;
}

/** The run's header (its user item) naming `model` after the models that answered before. */
function withModel(items: Item[], runId: string, model: string | null | undefined): Item[] {
  const i = items.findIndex((it) => it.kind === 'user' && it.runId === runId);
  if (i < 0 || !model) {
    return items;
  }
  const user = items[i] as Extract<Item, { kind: 'user' }>;
  const models = user.models ?? [];
  if (models[models.length - 1] === model) {
    return items;
  }
  const copy = items.slice();
  copy[i] = { ...user, models: [...models, model], rev: user.rev + 1 };
  return copy;
}

/** Immutable helpers: every changed item gets a fresh object with rev + 1. */
function replaceItem(c: Conversation, index: number, item: Item): Item[] {
  const items = c.items.slice();
  items[index] = { ...item, rev: item.rev + 1 } as Item;
  return items;
}

function findLast(items: Item[], pred: (item: Item) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    if (pred(items[i])) {
      return i;
    }
  }
  return -1;
}

/** Close the streaming text of a run: the next text starts a new block after a tool card. */
/**
 * The run's text block still being written, when nothing but messages waiting for the model
 * came after it; -1 otherwise (the next text starts a new block).
 */
function streamingText(items: Item[], runId: string): number {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const it = items[i];
    if (it.kind === 'message' && it.state === 'queued') {
      continue;
    }
    return it.kind === 'text' && it.runId === runId && it.streaming ? i : -1;
  }
  return -1;
}

/** The last `discard` characters of the block at `at` removed (the block too when emptied). */
function voided(items: Item[], at: number, discard: number): Item[] {
  const block = items[at] as Extract<Item, { kind: 'text' }>;
  const kept = block.text.slice(0, Math.max(block.text.length - discard, 0));
  const copy = items.slice();
  if (kept) {
    copy[at] = { ...block, text: kept, rev: block.rev + 1 };
  } else {
    copy.splice(at, 1);
  }
  return copy;
}

function closeText(items: Item[], runId: string): Item[] {
  const i = findLast(items, (it) => it.runId === runId && it.kind === 'text' && it.streaming);
  if (i < 0) {
    return items;
  }
  const copy = items.slice();
  const item = copy[i] as Extract<Item, { kind: 'text' }>;
  copy[i] = { ...item, streaming: false, rev: item.rev + 1 };
  return copy;
}

function bump(c: Conversation, patch: Partial<Conversation>): Conversation {
  return { ...c, ...patch, rev: c.rev + 1 };
}

export function reduce(c: Conversation, action: Action): Conversation {
  switch (action.type) {
    case 'runStarted': {
      const user: Item = {
        kind: 'user',
        id: `u-${action.runId}`,
        rev: 0,
        runId: action.runId,
        text: action.prompt,
        agent: action.agent,
        ...(action.folderName ? { folder: action.folderName } : {}),
      };
      return bump(c, {
        items: [...c.items, user],
        runId: action.runId,
        sessionId: action.sessionId ?? c.sessionId,
        folder: c.folder ?? action.folder,
        readOnly: false,
        state: 'preparing',
        stepText: undefined,
        context: undefined,
      });
    }
    case 'messageQueued': {
      const item: Item = {
        kind: 'message',
        id: `m-${action.runId}-${action.messageId}`,
        rev: 0,
        runId: action.runId,
        messageId: action.messageId,
        text: action.text,
        mode: action.mode,
        state: 'queued',
      };
      // The answer being written goes on in its block: the message waits below it.
      return bump(c, { items: [...c.items, item] });
    }
    case 'messageDelivered': {
      const { runId, messageIds } = action.params;
      let changed = false;
      const items = c.items.map((it): Item => {
        if (it.kind === 'message' && it.runId === runId && it.state === 'queued' && messageIds.includes(it.messageId)) {
          changed = true;
          return { ...it, state: 'delivered', rev: it.rev + 1 };
        }
        return it;
      });
      // The model has the message: what it writes next is a new answer, below the message.
      return changed ? bump(c, { items: closeText(items, runId) }) : c;
    }
    case 'context': {
      const { runId, step, used, limit, compacted } = action.params;
      if (runId !== c.runId) {
        return c;
      }
      const patch: Partial<Conversation> = { context: { runId, used, limit } };
      if (compacted) {
        const item: Item = { kind: 'compaction', id: `c-${runId}-${step}-${c.rev}`, rev: 0, runId, step, compacted };
        patch.items = [...closeText(c.items, runId), item];
      }
      return bump(c, patch);
    }
    case 'commandStarted': {
      const i = findLast(c.items, (it) => it.kind === 'tool' && it.runId === action.runId && it.callId === action.callId);
      if (i < 0) {
        return c;
      }
      const card = c.items[i] as Extract<Item, { kind: 'tool' }>;
      return card.terminal ? c : bump(c, { items: replaceItem(c, i, { ...card, terminal: true }) });
    }
    case 'status': {
      const items = withModel(c.items, action.params.runId, action.params.model);
      if (action.params.runId !== c.runId) {
        return items === c.items ? c : bump(c, { items });
      }
      return bump(c, { state: action.params.state, items });
    }
    case 'stream': {
      const { runId, text, restart, discard } = action.params;
      const at = streamingText(c.items, runId);
      if (restart) {
        // The model's call was cut (a dropped stream, or the user steered): what it wrote
        // in this step is void and the answer starts again.
        return at < 0 ? c : bump(c, { items: voided(c.items, at, discard ?? 0) });
      }
      if (at >= 0) {
        const block = c.items[at] as Extract<Item, { kind: 'text' }>;
        const items = c.items.slice();
        items[at] = { ...block, text: block.text + text, rev: block.rev + 1 };
        return bump(c, { items });
      }
      const item: Item = { kind: 'text', id: `t-${runId}-${action.params.seq}`, rev: 0, runId, text, streaming: true };
      return bump(c, { items: [...closeText(c.items, runId), item] });
    }
    case 'subagent':
      return withSubagent(c, action.params);
    case 'step': {
      const p = action.params;
      if (p.parentCallId) {
        return withSubagentStep(c, p, p.parentCallId);
      }
      const callId = p.callId ?? `${p.step}-${p.tool}`;
      const i = findLast(c.items, (it) => it.kind === 'tool' && it.runId === p.runId && it.callId === callId);
      const stepText = `Step ${p.step}/${p.maxSteps} · ${p.tool}`;
      if (p.phase === 'tool_start' || i < 0) {
        const card: Item = {
          kind: 'tool',
          id: `s-${p.runId}-${callId}`,
          rev: 0,
          runId: p.runId,
          callId,
          tool: p.tool,
          args: p.args ?? {},
          summary: argsSummary(p.args),
          step: p.step,
          maxSteps: p.maxSteps,
          state: p.phase === 'tool_start' ? 'running' : p.success === false ? 'failed' : 'done',
          result: p.summary,
          path: pathOf(p.tool, p.args),
        };
        return bump(c, { items: [...closeText(c.items, p.runId), card], stepText });
      }
      const old = c.items[i] as Extract<Item, { kind: 'tool' }>;
      const done: Item = { ...old, state: p.success === false ? 'failed' : 'done', result: p.summary ?? old.result };
      return bump(c, { items: replaceItem(c, i, done), stepText });
    }
    case 'plan': {
      const p = action.params;
      const i = findLast(c.items, (it) => it.kind === 'plan' && it.runId === p.runId);
      const plan: Item = { kind: 'plan', id: `p-${p.runId}`, rev: 0, runId: p.runId, goal: p.goal ?? '', steps: p.steps };
      if (i < 0) {
        return bump(c, { items: [...closeText(c.items, p.runId), plan] });
      }
      return bump(c, { items: replaceItem(c, i, { ...plan, rev: c.items[i].rev }) });
    }
    case 'instructions': {
      const items = withInstructions(c.items, action.params.runId, action.params.files);
      return items === c.items ? c : bump(c, { items });
    }
    case 'notice': {
      const p = action.params;
      const n = c.items.filter((it) => it.kind === 'notice' && it.runId === p.runId).length;
      const item: Item = { kind: 'notice', id: `n-${p.runId}-${n}`, rev: 0, runId: p.runId, level: p.level, message: p.message };
      return bump(c, { items: [...closeText(c.items, p.runId), item] });
    }
    case 'approval': {
      const item: Item = { kind: 'approval', id: action.id, rev: 0, runId: action.runId, message: action.message, actions: action.actions };
      return bump(c, { items: [...closeText(c.items, action.runId), item] });
    }
    case 'approvalAnswered': {
      const i = c.items.findIndex((it) => it.id === action.id && it.kind === 'approval');
      if (i < 0) {
        return c;
      }
      return bump(c, { items: replaceItem(c, i, { ...(c.items[i] as Extract<Item, { kind: 'approval' }>), answer: action.answer }) });
    }
    case 'ask': {
      const item: Item = {
        kind: 'ask',
        id: action.id,
        rev: 0,
        runId: action.runId,
        question: action.question,
        default: action.default,
        answered: false,
      };
      return bump(c, { items: [...closeText(c.items, action.runId), item] });
    }
    case 'askAnswered': {
      const i = c.items.findIndex((it) => it.id === action.id && it.kind === 'ask');
      if (i < 0) {
        return c;
      }
      const old = c.items[i] as Extract<Item, { kind: 'ask' }>;
      return bump(c, { items: replaceItem(c, i, { ...old, answered: true, answer: action.answer }) });
    }
    case 'runEnded':
      return bump(endRun(c, action), c.runId === action.runId ? { runId: undefined, state: undefined, stepText: undefined } : {});
    case 'sessionLoaded':
      return { ...fromEntries(action.sessionId, action.entries), ...(action.folder ? { folder: action.folder } : {}), rev: c.rev + 1 };
    case 'continueSession':
      return bump(c, { readOnly: false });
    case 'newSession':
      return { ...emptyConversation(), rev: c.rev + 1 };
    case 'checkpoints':
      return withUndoable(c, action.runIds, action.previews ?? {});
    case 'reviewTold': {
      const item: Item = {
        kind: 'review',
        id: `v-${action.runId}-${c.items.filter((it) => it.kind === 'review').length}`,
        rev: 0,
        runId: action.runId,
        summary: action.summary,
        note: action.note,
        otherSession: action.otherSession,
      };
      // Told before the run's first model call, it came before the prompt: show it there.
      const user = c.items.findIndex((it) => it.kind === 'user' && it.runId === action.runId);
      const before = action.beforePrompt ?? !c.items.slice(user + 1).some((it) => it.runId === action.runId);
      const items = user >= 0 && before ? [...c.items.slice(0, user), item, ...c.items.slice(user)] : [...c.items, item];
      return bump(c, { items });
    }
    case 'restored': {
      const r = action.result;
      if (!r.restoreRunId || c.items.some((it) => it.kind === 'restore' && it.runId === r.restoreRunId)) {
        return c;
      }
      const item: Item = {
        kind: 'restore',
        id: `r-${r.restoreRunId}`,
        rev: 0,
        runId: r.restoreRunId,
        restores: r.runId,
        status: r.status,
        restored: r.restored,
        conflicts: r.conflicts,
        unrestorable: r.unrestorable,
      };
      return bump(c, { items: [...c.items, item] });
    }
  }
}

/** The `delegate` card of run `runId` and call `callId`, and its index; undefined when absent. */
function delegateCard(c: Conversation, runId: string, callId: string): [number, Extract<Item, { kind: 'tool' }>] | undefined {
  const i = findLast(c.items, (it) => it.kind === 'tool' && it.runId === runId && it.callId === callId);
  return i < 0 ? undefined : [i, c.items[i] as Extract<Item, { kind: 'tool' }>];
}

/** agent/subagent: the subagent of a `delegate` card starts (its agent, task, model) or ends. */
function withSubagent(c: Conversation, p: SubagentParams): Conversation {
  const found = delegateCard(c, p.runId, p.callId);
  if (!found) {
    return c;
  }
  const [i, card] = found;
  const before: SubagentRun = card.subagent ?? { agent: p.agent, steps: [] };
  const child: SubagentRun =
    p.phase === 'start'
      ? { ...before, agent: p.agent, task: p.task ?? before.task, model: p.model ?? before.model, background: p.background ?? before.background }
      : {
          ...before,
          agent: p.agent,
          status: p.status ?? 'failed',
          report: p.summary,
          stepCount: p.steps,
          tokens: p.usage?.total_tokens,
          promptTokens: p.usage?.prompt_tokens,
          completionTokens: p.usage?.completion_tokens,
          // Whatever it left running ended with it.
          steps: before.steps.map((s) => (s.state === 'running' ? { ...s, state: 'interrupted' } : s)),
        };
  return bump(c, { items: replaceItem(c, i, { ...card, subagent: child }) });
}

/** A subagent's agent/step: its tool call in the `delegate` card `parentCallId`; the header's
 * step text names the subagent on the run's step. */
function withSubagentStep(c: Conversation, p: StepParams, parentCallId: string): Conversation {
  const found = delegateCard(c, p.runId, parentCallId);
  if (!found) {
    return c;
  }
  const [i, card] = found;
  const child: SubagentRun = card.subagent ?? { agent: p.agent ?? 'subagent', steps: [] };
  const at = child.steps.findIndex((s) => s.callId === p.callId);
  const state = p.phase === 'tool_start' ? 'running' : p.success === false ? 'failed' : 'done';
  const steps = child.steps.slice();
  if (at < 0) {
    steps.push({ callId: p.callId, tool: p.tool, summary: argsSummary(p.args), state, result: p.summary, step: p.step, maxSteps: p.maxSteps });
  } else {
    steps[at] = { ...steps[at], state, result: p.summary ?? steps[at].result };
  }
  const where = card.step !== undefined && card.maxSteps ? `Step ${card.step}/${card.maxSteps} · ` : '';
  const stepText = `${where}${child.agent}: ${p.tool}`;
  return bump(c, { items: replaceItem(c, i, { ...card, subagent: { ...child, steps } }), stepText });
}

/** Mark which runs can be undone; the end and restore items re-render when theirs changes. */
function withUndoable(c: Conversation, runIds: string[], previews: Record<string, UndoPreview>): Conversation {
  const now = new Set(runIds);
  const before = new Set(c.undoable ?? []);
  const old = c.undoPreviews ?? {};
  const changed = (runId: string): boolean => now.has(runId) !== before.has(runId) || JSON.stringify(old[runId]) !== JSON.stringify(previews[runId]);
  const items = c.items.map((it): Item => ((it.kind === 'end' || it.kind === 'restore') && changed(it.runId) ? ({ ...it, rev: it.rev + 1 } as Item) : it));
  return bump(c, { items, undoable: runIds, undoPreviews: previews });
}

/** What the undo button of a run's end says, from what undoing it would do now; undefined:
 * nothing is left to undo (`detail` still says why). */
export function undoOffer(preview: UndoPreview | undefined): { label?: string; detail?: string } {
  if (!preview) {
    return { label: 'Undo run' };
  }
  const list = (paths: string[]): string => paths.join(', ');
  const kept = preview.changedSince.length > 0 ? `${list(preview.changedSince)} changed since: left as it is.` : '';
  if (preview.restores.length === 0) {
    const why = preview.changedSince.length > 0 ? kept : 'Nothing left to undo: the files are as they were before this run.';
    return { detail: why };
  }
  if (preview.partlyUndone.length === 0 && preview.changedSince.length === 0) {
    return { label: 'Undo run' };
  }
  const parts: string[] = [];
  if (preview.partlyUndone.length > 0) {
    parts.push(`You already undid part of this run in ${list(preview.partlyUndone)}; undoing the rest puts ${list(preview.restores)} back as before the run.`);
  } else {
    parts.push(`Undoing puts ${list(preview.restores)} back as before the run.`);
  }
  if (kept) {
    parts.push(kept);
  }
  return { label: preview.partlyUndone.length > 0 ? 'Undo the rest of this run' : 'Undo run', detail: parts.join(' ') };
}

/** Whether the panel offers to undo the run of this end or restore item. */
export function canUndo(c: Conversation, item: Item): boolean {
  if ((item.kind !== 'end' && item.kind !== 'restore') || !(c.undoable ?? []).includes(item.runId)) {
    return false;
  }
  return item.kind === 'restore' || undoOffer(c.undoPreviews?.[item.runId]).label !== undefined;
}

function endRun(c: Conversation, action: Extract<Action, { type: 'runEnded' }>): Conversation {
  let items = closeText(c.items, action.runId).map((it): Item => {
    if (it.runId !== action.runId) {
      return it;
    }
    // Whatever still waits for the user is withdrawn with the run.
    if (it.kind === 'tool' && (it.state === 'running' || (it.subagent && it.subagent.status === undefined))) {
      const subagent = it.subagent && it.subagent.status === undefined ? interruptedSubagent(it.subagent) : it.subagent;
      return { ...it, state: it.state === 'running' ? 'interrupted' : it.state, subagent, rev: it.rev + 1 };
    }
    if (it.kind === 'approval' && it.answer === undefined) {
      return { ...it, answer: 'withdrawn', rev: it.rev + 1 };
    }
    if (it.kind === 'ask' && !it.answered) {
      return { ...it, answered: true, answer: null, rev: it.rev + 1 };
    }
    if (it.kind === 'message' && it.state === 'queued') {
      return { ...it, state: 'undelivered', rev: it.rev + 1 };
    }
    return it;
  });
  const r = action.result;
  const usage = r?.usage as Record<string, unknown> | undefined;
  const status = action.cancelled ? 'cancelled' : r ? r.status : 'failed';
  const detail = action.error ?? (r && r.status !== 'success' ? r.output : undefined);
  const end: Item = {
    kind: 'end',
    id: `e-${action.runId}`,
    rev: 0,
    runId: action.runId,
    status,
    detail: detail ? detail.slice(0, 500) : undefined,
    steps: r?.steps,
    tokens: r?.usage?.total_tokens,
    promptTokens: r?.usage?.prompt_tokens,
    completionTokens: r?.usage?.completion_tokens,
    cost: costOf(usage),
    seconds: r?.duration_seconds,
  };
  // The result names every file, those that joined late included: it fills in any
  // notification that was missed.
  items = [...withInstructions(items, action.runId, r?.instructions ?? []), end];
  return { ...c, items, sessionId: r?.sessionId ?? c.sessionId };
}

/** A subagent the run's end left working: it and its calls in flight were stopped. */
function interruptedSubagent(child: SubagentRun): SubagentRun {
  return { ...child, status: 'interrupted', steps: child.steps.map((s) => (s.state === 'running' ? { ...s, state: 'interrupted' } : s)) };
}

/** The conversation of a stored session (agent/session entries), read-only. */
export function fromEntries(sessionId: string, entries: readonly SessionEntry[]): Conversation {
  let c: Conversation = { ...emptyConversation(), sessionId, readOnly: true };
  const toolNames = new Map<string, string>();
  for (const entry of entries) {
    c = replayEntry(c, entry, toolNames);
  }
  // A run the record never saw finish (the server died): its open calls stay unknown.
  const items = c.items.map((it): Item => (it.kind === 'tool' && it.state === 'running' ? { ...it, state: 'interrupted' } : it));
  // The replay is a record, not a live run.
  return { ...c, items, readOnly: true, runId: undefined, state: undefined, stepText: undefined, sessionId };
}

/** One stored entry applied to the conversation as its live notifications were. */
function replayEntry(c: Conversation, e: SessionEntry, toolNames: Map<string, string>): Conversation {
  const runId = e.run_id;
  switch (e.type) {
    case 'run_start':
      c = reduce(c, { type: 'runStarted', runId, prompt: e.prompt, agent: e.agent || undefined });
      c = modelAnswered(c, runId, e.model);
      return reduce(c, { type: 'instructions', params: { runId, files: e.instructions } });
    case 'note':
      // What the front end told the model just before the run's prompt.
      return reduce(c, { type: 'reviewTold', runId, summary: 'What the agent was told', note: e.content, beforePrompt: true });
    case 'user_message':
      // The user's own prompt is the run's start; what else the model was told as a user
      // message is the review of its edits.
      return e.content.startsWith(REVIEW_NOTE_HEADER) ? reduce(c, { type: 'reviewTold', runId, summary: 'What the agent was told', note: e.content, beforePrompt: false }) : c;
    case 'assistant_message':
      // The header names each model that answered, once (mixed mode: the planner's first).
      c = modelAnswered(c, runId, e.model);
      if (!e.content || e.content.trim() === '') {
        return c;
      }
      c = reduce(c, { type: 'stream', params: { runId, seq: c.items.length + 1, text: e.content } });
      return { ...c, items: closeText(c.items, runId) };
    case 'tool_call':
      toolNames.set(e.call_id, e.name);
      return reduce(c, { type: 'step', params: { runId, step: 0, maxSteps: 0, phase: 'tool_start', tool: e.name, callId: e.call_id, args: e.arguments } });
    case 'tool_result':
      return reduce(c, {
        type: 'step',
        params: {
          runId,
          step: 0,
          maxSteps: 0,
          phase: 'tool_end',
          tool: toolNames.get(e.call_id) ?? e.name,
          callId: e.call_id,
          args: {},
          success: e.success,
          summary: e.content.length > 200 ? `${e.content.slice(0, 199)}…` : e.content,
        },
      });
    case 'plan':
      return reduce(c, { type: 'plan', params: { runId, goal: e.goal, steps: e.steps.map((step) => ({ text: step.text ?? '', status: step.status as PlanStepStatus })) } });
    case 'restore':
      return reduce(c, {
        type: 'restored',
        result: {
          runId: e.restores,
          restoreRunId: runId,
          status: e.status as RestoreResult['status'],
          restored: e.restored,
          conflicts: e.conflicts,
          unrestorable: e.unrestorable.map((u) => ({ path: u.path ?? '', reason: u.reason ?? '' })),
        },
      });
    case 'run_finish':
      return reduce(c, {
        type: 'runEnded',
        runId,
        result: { status: e.status as RunResult['status'], output: e.output, instructions: e.instructions },
        cancelled: false,
      });
    // Not items of their own: an approval shows on its tool card; a compaction or a context
    // update changed what the model saw, not what the conversation was.
    case 'approval_decision':
    case 'context_update':
    case 'compaction':
      return c;
    case 'subagent': {
      // What the session kept of a subagent: who, its task and model, how it ended (its
      // tool calls are not kept), in the card of the delegate call it worked under.
      const status = e.status === 'success' || e.status === 'partial' ? e.status : 'failed';
      const start: SubagentParams = { runId, callId: e.call_id, agent: e.agent, phase: 'start', task: e.task, model: e.model ?? undefined };
      const usage = { prompt_tokens: e.prompt_tokens, completion_tokens: e.completion_tokens, total_tokens: e.total_tokens, cached_tokens: 0 };
      const end: SubagentParams = { runId, callId: e.call_id, agent: e.agent, phase: 'end', status, summary: e.report.slice(0, 500), steps: e.steps, usage };
      return reduce(reduce(c, { type: 'subagent', params: start }), { type: 'subagent', params: end });
    }
    case 'model_choice':
      return reduce(c, {
        type: 'notice',
        params: { runId, level: 'info', message: e.model ? `Model for this session: ${e.model} (/model)` : 'Model for this session: the default again (/model)' },
      });
    default:
      return unknownEntry(c, e);
  }
}

/** The run's header naming `model` (a stored run_start or answer), when it names one. */
function modelAnswered(c: Conversation, runId: string, model: string | null | undefined): Conversation {
  const items = withModel(c.items, runId, model);
  return items === c.items ? c : { ...c, items };
}

/**
 * An entry of a type this extension does not know (a newer server wrote it) is left out;
 * `never` makes the compiler check that every type of the protocol has its case above.
 */
function unknownEntry(c: Conversation, _entry: never): Conversation {
  return c;
}

/** Whether the run in flight waits for an answer in the panel. */
export function pendingQuestions(c: Conversation): Item[] {
  return c.items.filter((it) => (it.kind === 'approval' && it.answer === undefined) || (it.kind === 'ask' && !it.answered));
}

/** 1830 → "1.8k", 41000 → "41k", 950 → "950": short enough for a header and a transcript line. */
export function formatTokens(n: number): string {
  if (n < 1000) {
    return String(Math.round(n));
  }
  if (n < 10000) {
    return `${(Math.round(n / 100) / 10).toFixed(1).replace(/\.0$/, '')}k`;
  }
  if (n < 1_000_000) {
    return `${Math.round(n / 1000)}k`;
  }
  return `${(Math.round(n / 100_000) / 10).toFixed(1).replace(/\.0$/, '')}M`;
}

export interface Meter {
  /** 0..100, for the bar's width (a limit of 0 reads as full). */
  percent: number;
  /** Short, on the bar: "12k / 128k". */
  short: string;
  /** Full, for the title and screen readers. */
  label: string;
  level: 'ok' | 'high' | 'full';
}

export function contextMeter(used: number, limit: number): Meter {
  const ratio = limit > 0 ? used / limit : 1;
  const percent = Math.max(0, Math.min(100, Math.round(ratio * 100)));
  const exact = (n: number): string => n.toLocaleString('en-US');
  return {
    percent,
    short: `${formatTokens(used)} / ${formatTokens(limit)}`,
    label: `Context: ${exact(used)} of ${exact(limit)} tokens (${percent} %)`,
    level: ratio >= 0.9 ? 'full' : ratio >= 0.7 ? 'high' : 'ok',
  };
}

export function compactionText(c: Compaction): string {
  return `Context compacted: ${c.messagesBefore} → ${c.messagesAfter} messages, ${formatTokens(c.tokensBefore)} → ${formatTokens(c.tokensAfter)} tokens`;
}

export const MESSAGE_STATE_WORDS: Record<'queued' | 'delivered' | 'undelivered', string> = {
  queued: 'queued',
  delivered: 'delivered',
  undelivered: 'not delivered (the run ended first)',
};
