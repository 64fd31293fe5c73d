/**
 * The panel's worktree sessions: runs that work in a git worktree of their own (not in the
 * user's tree, so several may work at once, beside the conversation's own run), and what
 * `agent/worktrees` lists, each with what the user did to it last (applied, conflict,
 * discarded...). A pure reducer, like ./model: the extension keeps the truth and sends it
 * whole to the webview, which renders one card per worktree, side by side.
 */
import type { ApplyWorktreeResult, RunResult, StatusParams, StepParams, WorktreeConflict, WorktreeInfo } from '../protocol';

/** A run started from the panel in a worktree. */
export interface WorktreeRun {
  runId: string;
  /** The worktree's name (the panel names it before the run starts). */
  name: string;
  prompt: string;
  agent?: string;
  /** agent/status's state while it works; its result's status (or `cancelled`) once it ended. */
  state: string;
  stepText?: string;
  ended: boolean;
  /** Why it failed, when it did. */
  detail?: string;
}

/** What the last Apply or Discard of a worktree did. */
export interface WorktreeOutcome {
  action: 'apply' | 'discard';
  /** The apply's status, `discarded`, or `error` (the server refused or failed). */
  status: ApplyWorktreeResult['status'] | 'discarded' | 'error';
  message: string;
  files: string[];
  merged: string[];
  conflicts: WorktreeConflict[];
  /** The changes wait in the editor's inline review. */
  pending: boolean;
}

export interface WorktreeSessions {
  /** What agent/worktrees said last (oldest first). */
  listed: WorktreeInfo[];
  /** agent/worktrees could not be asked or failed. */
  listError?: string;
  runs: WorktreeRun[];
  outcomes: Record<string, WorktreeOutcome>;
  /** Worktrees an Apply or Discard is under way for (their buttons wait). */
  busy: string[];
  rev: number;
}

export type WorktreeAction =
  | { type: 'runStarted'; runId: string; name: string; prompt: string; agent?: string }
  | { type: 'status'; params: StatusParams }
  | { type: 'step'; params: StepParams }
  | { type: 'runEnded'; runId: string; result?: Pick<RunResult, 'status' | 'output' | 'worktree'>; error?: string; cancelled: boolean }
  | { type: 'listed'; worktrees: WorktreeInfo[] }
  | { type: 'listFailed'; error: string }
  | { type: 'busy'; name: string }
  | { type: 'applied'; name: string; result: ApplyWorktreeResult }
  | { type: 'discarded'; name: string }
  | { type: 'failed'; name: string; action: 'apply' | 'discard'; error: string };

export function emptyWorktrees(): WorktreeSessions {
  return { listed: [], runs: [], outcomes: {}, busy: [], rev: 0 };
}

/** A name for a new worktree of the panel: unique enough, and valid as a branch's last part. */
export function worktreeName(runCount: number, now: Date = new Date()): string {
  // Short enough for a card's title; the month, day and second keep it from naming (and so
  // continuing) a worktree of another day or window.
  const stamp = now.toISOString().replace(/[-:]/g, '').slice(4, 15).replace('T', '-');
  return `wt-${stamp}-${runCount + 1}`;
}

function withRun(s: WorktreeSessions, runId: string, patch: (run: WorktreeRun) => WorktreeRun): WorktreeSessions {
  const i = s.runs.findIndex((run) => run.runId === runId);
  if (i < 0) {
    return s;
  }
  const runs = s.runs.slice();
  runs[i] = patch(runs[i]);
  return { ...s, runs, rev: s.rev + 1 };
}

function notBusy(s: WorktreeSessions, name: string): string[] {
  return s.busy.filter((n) => n !== name);
}

export function reduceWorktrees(s: WorktreeSessions, action: WorktreeAction): WorktreeSessions {
  switch (action.type) {
    case 'runStarted': {
      const run: WorktreeRun = { runId: action.runId, name: action.name, prompt: action.prompt, agent: action.agent, state: 'preparing', ended: false };
      // A new run in a worktree makes what was said of it before out of date.
      const outcomes = { ...s.outcomes };
      delete outcomes[action.name];
      return { ...s, runs: [...s.runs.filter((r) => r.name !== action.name), run], outcomes, rev: s.rev + 1 };
    }
    case 'status':
      return withRun(s, action.params.runId, (run) => (run.ended ? run : { ...run, state: action.params.state }));
    case 'step': {
      const p = action.params;
      // A subagent's call: its name and tool (its step numbers are its own, not the run's).
      const stepText = p.parentCallId ? `${p.agent ?? 'subagent'}: ${p.tool}` : `Step ${p.step}/${p.maxSteps} · ${p.tool}`;
      return withRun(s, p.runId, (run) => (run.ended ? run : { ...run, stepText }));
    }
    case 'runEnded': {
      const r = action.result;
      const state = action.cancelled ? 'cancelled' : r ? r.status : 'failed';
      const detail = action.error ?? (r && r.status !== 'success' ? r.output : undefined);
      let next = withRun(s, action.runId, (run) => ({ ...run, state, ended: true, stepText: undefined, detail: detail ? detail.slice(0, 300) : undefined }));
      const info = r?.worktree;
      if (info) {
        // The result's numbers are the freshest until the list is asked again.
        const listed = next.listed.some((w) => w.name === info.name) ? next.listed.map((w) => (w.name === info.name ? info : w)) : [...next.listed, info];
        next = { ...next, listed };
      }
      return next;
    }
    case 'listed': {
      return { ...s, listed: action.worktrees, listError: undefined, rev: s.rev + 1 };
    }
    case 'listFailed':
      return { ...s, listError: action.error, rev: s.rev + 1 };
    case 'busy':
      return s.busy.includes(action.name) ? s : { ...s, busy: [...s.busy, action.name], rev: s.rev + 1 };
    case 'applied': {
      const r = action.result;
      const outcome: WorktreeOutcome = { action: 'apply', status: r.status, message: r.message, files: r.files, merged: r.merged, conflicts: r.conflicts, pending: r.pending };
      return { ...s, busy: notBusy(s, action.name), outcomes: { ...s.outcomes, [action.name]: outcome }, rev: s.rev + 1 };
    }
    case 'discarded': {
      const outcome: WorktreeOutcome = { action: 'discard', status: 'discarded', message: `Discarded ${action.name} and its branch.`, files: [], merged: [], conflicts: [], pending: false };
      return {
        ...s,
        busy: notBusy(s, action.name),
        listed: s.listed.filter((w) => w.name !== action.name),
        runs: s.runs.filter((r) => r.name !== action.name),
        outcomes: { ...s.outcomes, [action.name]: outcome },
        rev: s.rev + 1,
      };
    }
    case 'failed': {
      const outcome: WorktreeOutcome = { action: action.action, status: 'error', message: action.error, files: [], merged: [], conflicts: [], pending: false };
      return { ...s, busy: notBusy(s, action.name), outcomes: { ...s.outcomes, [action.name]: outcome }, rev: s.rev + 1 };
    }
  }
}

/** One card of the panel's worktree section. */
export interface WorktreeCard {
  name: string;
  branch?: string;
  /** What the card's badge says: the run's live state, else the listed state. */
  state: string;
  /** `running` | `ready` | `uncommitted changes` | `missing` | `ended` (listed no more) */
  kind: 'running' | 'ready' | 'uncommitted changes' | 'missing' | 'gone';
  prompt?: string;
  stepText?: string;
  runStatus?: string;
  detail?: string;
  stats?: { files: number; added: number; removed: number };
  outcome?: WorktreeOutcome;
  busy: boolean;
  canApply: boolean;
  canDiscard: boolean;
  /** The run in flight in it (Stop cancels it). */
  runId?: string;
}

const RUN_STATE_WORDS: Record<string, string> = {
  preparing: 'starting',
  model_running: 'thinking',
  tool_running: 'running a tool',
  awaiting_human: 'waiting for you',
  completed: 'finishing',
  failed: 'failing',
  aborted: 'stopping',
};

/** The cards, in the list's order (oldest first), then runs the list does not hold yet; a
 * discarded worktree keeps a card saying so until the next list. */
export function worktreeCards(s: WorktreeSessions): WorktreeCard[] {
  const cards: WorktreeCard[] = [];
  const seen = new Set<string>();
  const lastRun = (name: string): WorktreeRun | undefined => [...s.runs].reverse().find((r) => r.name === name);
  for (const w of s.listed) {
    seen.add(w.name);
    const run = lastRun(w.name);
    const working = run !== undefined && !run.ended;
    const busy = s.busy.includes(w.name);
    const kind = working ? 'running' : w.state;
    // Applied (or found in the tree already): applying again would do nothing until a new run.
    const applied = ['applied', 'nothing'].includes(s.outcomes[w.name]?.status ?? '');
    cards.push({
      name: w.name,
      branch: w.branch,
      state: working ? (RUN_STATE_WORDS[run.state] ?? run.state) : w.state,
      kind,
      prompt: run?.prompt,
      stepText: working ? run.stepText : undefined,
      runStatus: run?.ended ? run.state : undefined,
      detail: run?.detail,
      stats: { files: w.files, added: w.added, removed: w.removed },
      outcome: s.outcomes[w.name],
      busy,
      canApply: !busy && kind === 'ready' && w.files > 0 && !applied,
      canDiscard: !busy && kind !== 'running',
      runId: working ? run.runId : undefined,
    });
  }
  for (const run of s.runs) {
    if (seen.has(run.name)) {
      continue;
    }
    seen.add(run.name);
    const latest = lastRun(run.name) ?? run;
    cards.push({
      name: latest.name,
      state: latest.ended ? latest.state : (RUN_STATE_WORDS[latest.state] ?? latest.state),
      kind: latest.ended ? 'gone' : 'running',
      prompt: latest.prompt,
      stepText: latest.ended ? undefined : latest.stepText,
      runStatus: latest.ended ? latest.state : undefined,
      detail: latest.detail,
      outcome: s.outcomes[latest.name],
      busy: false,
      canApply: false,
      canDiscard: false,
      runId: latest.ended ? undefined : latest.runId,
    });
  }
  for (const [name, outcome] of Object.entries(s.outcomes)) {
    if (!seen.has(name) && outcome.status === 'discarded') {
      cards.push({ name, state: 'discarded', kind: 'gone', outcome, busy: false, canApply: false, canDiscard: false });
    }
  }
  return cards;
}

/** "+14 −3 in 2 files". */
export function statsText(stats: { files: number; added: number; removed: number }): string {
  if (stats.files === 0) {
    return 'no changes';
  }
  return `+${stats.added} −${stats.removed} in ${stats.files} file${stats.files === 1 ? '' : 's'}`;
}

/** What an outcome says in one line. */
export function outcomeText(o: WorktreeOutcome): string {
  switch (o.status) {
    case 'applied':
      return o.pending ? `Applied: ${o.files.join(', ')} — keep or undo it in the editor.` : `Applied: ${o.files.join(', ')}.`;
    case 'conflict':
      return 'Conflict: nothing was written, the changes stay on the branch.';
    case 'nothing':
      return 'Nothing to apply: your tree already holds these changes.';
    case 'discarded':
      return o.message;
    case 'error':
      return `${o.action === 'apply' ? 'Could not apply' : 'Could not discard'}: ${o.message}`;
    default:
      return `${o.status}: ${o.message}`;
  }
}
