/**
 * What the user sees of one run: the state machine fed by `agent/status` and `agent/step`,
 * and the status bar texts derived from it. Pure, unit-tested.
 */
import type { RunResult, StatusParams, StepParams, SubagentParams } from './protocol';

export interface RunSnapshot {
  runId: string;
  state: string;
  detail?: string;
  step?: number;
  maxSteps?: number;
  tool?: string;
  target?: string;
  toolRunning: boolean;
  /** The subagent whose step `tool` is (its steps show on the run's step). */
  subagent?: string;
}

const TARGET_KEYS = ['path', 'file', 'filePath', 'file_path', 'target', 'command', 'cmd', 'pattern', 'query', 'url', 'agent'];
const PATH_KEYS = new Set(['path', 'file', 'filePath', 'file_path', 'target']);

export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, Math.max(0, max - 1))}…`;
}

function basename(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  return parts.length ? parts[parts.length - 1] : path;
}

/** The most telling argument of a tool call, for one line of UI ("app.py", "pytest -q"). */
export function toolTarget(args: Record<string, unknown> | undefined, full = false): string | undefined {
  if (!args) {
    return undefined;
  }
  for (const key of TARGET_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') {
      const shown = PATH_KEYS.has(key) && !full ? basename(value) : value;
      return truncate(shown, 40);
    }
  }
  return undefined;
}

const STATE_WORDS: Record<string, string> = {
  preparing: 'preparing',
  model_running: 'thinking',
  tool_running: 'running a tool',
  awaiting_human: 'waiting for you',
  completed: 'finishing',
  failed: 'failing',
  aborted: 'cancelling',
};

/** `Agent` or, when the workspace has several folders, `Agent · $(folder) backend`. */
function agentLabel(folder: string | undefined): string {
  return folder ? `Agent · $(folder) ${folder}` : 'Agent';
}

export class RunView {
  private snapshot: RunSnapshot;

  /** `folder`: the name of the run's folder, given only when the workspace has several. */
  constructor(
    runId: string,
    readonly folder?: string,
  ) {
    this.snapshot = { runId, state: 'preparing', toolRunning: false };
  }

  get current(): Readonly<RunSnapshot> {
    return this.snapshot;
  }

  onStatus(params: StatusParams): void {
    this.snapshot = { ...this.snapshot, state: params.state, detail: params.detail };
  }

  onStep(params: StepParams): void {
    if (params.parentCallId) {
      // A subagent's call: the run is still at its own step (the delegate call).
      this.snapshot = {
        ...this.snapshot,
        tool: params.tool,
        target: toolTarget(params.args),
        toolRunning: true,
        subagent: params.agent ?? 'subagent',
      };
      return;
    }
    this.snapshot = {
      subagent: undefined,
      ...this.snapshot,
      step: params.step,
      maxSteps: params.maxSteps,
      tool: params.tool,
      target: toolTarget(params.args),
      toolRunning: params.phase === 'tool_start',
    };
  }

  /** A subagent ended: the run's own step shows again. */
  onSubagent(params: SubagentParams): void {
    if (params.phase === 'end' && this.snapshot.subagent === params.agent) {
      this.snapshot = { ...this.snapshot, subagent: undefined, tool: 'delegate', target: params.agent };
    }
  }

  /** `$(sync~spin) Agent · step 3/20 · edit_file app.py` (`explore: grep foo` while a
   * subagent works) */
  statusText(): string {
    const s = this.snapshot;
    const parts = [`$(sync~spin) ${agentLabel(this.folder)}`];
    if (s.step !== undefined) {
      parts.push(s.maxSteps ? `step ${s.step}/${s.maxSteps}` : `step ${s.step}`);
    }
    if (s.state === 'awaiting_human') {
      parts.push('waiting for you');
    } else if (s.tool && (s.toolRunning || s.state === 'tool_running')) {
      const call = s.target ? `${s.tool} ${s.target}` : s.tool;
      parts.push(s.subagent ? `${s.subagent}: ${call}` : call);
    } else {
      parts.push(STATE_WORDS[s.state] ?? s.state);
    }
    return parts.join(' · ');
  }

  tooltip(): string {
    const s = this.snapshot;
    const where = this.folder ? ` in ${this.folder}` : '';
    const lines = [`Agent run ${s.runId}${where}: ${STATE_WORDS[s.state] ?? s.state}`];
    if (s.detail) {
      lines.push(s.detail);
    }
    lines.push('Click to show the output.');
    return lines.join('\n');
  }
}

/** The text shown briefly after a run ends; `toReview`: the run's changes still waiting for
 * the user's review, which matter more than its step count; `folder`: the run's folder's
 * name, when the workspace has several. */
export function finalStatusText(result: RunResult | undefined, error?: string, cancelled = false, toReview = 0, folder?: string): string {
  const agent = agentLabel(folder);
  const review = toReview > 0 ? ` · ${toReview} to review` : '';
  if (cancelled) {
    return `$(circle-slash) ${agent} · cancelled${review}`;
  }
  if (!result) {
    return `$(error) ${agent} · failed${review}: ${truncate(error ?? 'no result', 60)}`;
  }
  const steps = typeof result.steps === 'number' && !review ? ` (${result.steps} step${result.steps === 1 ? '' : 's'})` : '';
  const reason = truncate(firstLine(result.output ?? ''), 60);
  switch (result.status) {
    case 'success':
      return `$(check) ${agent} · done${steps}${review}`;
    case 'partial':
      return `$(warning) ${agent} · partial${steps}${review}${reason ? `: ${reason}` : ''}`;
    default:
      return `$(error) ${agent} · failed${review}${reason ? `: ${reason}` : ''}`;
  }
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? '';
}
