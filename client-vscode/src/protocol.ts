/**
 * Types and method names of the agentls protocol (docs/protocol.md): the requests the
 * extension sends and the notifications and requests the server sends back.
 */

export const Methods = {
  run: 'agent/run',
  cancel: 'agent/cancel',
  agents: 'agent/agents',
  status: 'agent/status',
  stream: 'agent/stream',
  step: 'agent/step',
  plan: 'agent/plan',
  askUser: 'agent/askUser',
} as const;

export type RunState =
  | 'preparing'
  | 'model_running'
  | 'tool_running'
  | 'awaiting_human'
  | 'completed'
  | 'failed'
  | 'aborted';

export interface RunParams {
  prompt: string;
  agent?: string;
  runId?: string;
  sessionId?: string;
  confirmMode?: string;
  maxSteps?: number;
  selfEval?: string;
  dryRun?: boolean;
  workDoneToken?: string | number;
}

export type RunStatus = 'success' | 'partial' | 'failed';

export interface RunResult {
  status: RunStatus;
  output?: string;
  steps?: number;
  tools_used?: unknown[];
  duration_seconds?: number;
  model?: string;
  runId?: string;
  sessionId?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
  [key: string]: unknown;
}

export interface CancelResult {
  cancelled: boolean;
}

export interface AgentInfo {
  name: string;
  description?: string;
  readOnly?: boolean;
}

export interface AgentsResult {
  agents: AgentInfo[];
}

export interface StatusParams {
  runId: string;
  state: RunState | string;
  detail?: string;
}

export interface StreamParams {
  runId: string;
  seq: number;
  text: string;
  /** The model's stream was cut and its call starts again: the text of this step so far is void. */
  restart?: boolean;
  /** How many characters of this step's text, already sent, the restart voids. */
  discard?: number;
  reason?: string;
  attempt?: number;
}

export interface StepParams {
  runId: string;
  step: number;
  maxSteps: number;
  phase: 'tool_start' | 'tool_end';
  tool: string;
  callId?: string;
  args?: Record<string, unknown>;
  success?: boolean;
  summary?: string;
}

export interface PlanStep {
  text: string;
  status: string;
}

export interface PlanParams {
  runId: string;
  goal?: string;
  steps: PlanStep[];
}

export interface AskUserParams {
  runId?: string;
  question: string;
  /** Text to start from, e.g. the command the user is editing in an approval. */
  default?: string;
}

export interface AskUserResult {
  answer: string | null;
}
