import type {
  AssistantMessage,
  ContextUpdate,
  NoteEntry,
  RestoreEntry,
  RunFinishEntry,
  RunStartEntry,
  ToolCallEntry,
  ToolResultEntry,
  UserMessage,
} from '../../generated/protocol';
import type { RunResult } from '../../protocol';

/** A whole `agent/run` result: `fields` over an empty successful run. */
export function runResult(fields: Partial<RunResult>): RunResult {
  return {
    status: 'success',
    output: '',
    steps: 0,
    tools_used: [],
    duration_seconds: 0,
    model: null,
    runId: 'r',
    sessionId: 's',
    instructions: [],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0 },
    ...fields,
  };
}

/** The fields every stored entry has, which the panel does not read. */
const WRITTEN = { model_call_index: 0, ts: 0 };

/**
 * Stored entries as `agent/session` sends them (typed by the generated `SessionEntry`):
 * what a test names, over defaults for the rest.
 */
export const stored = {
  runStart: (run_id: string, prompt: string, more: Partial<RunStartEntry> = {}): RunStartEntry => ({ ...WRITTEN, type: 'run_start', run_id, prompt, agent: '', instructions: [], ...more }),
  note: (run_id: string, content: string): NoteEntry => ({ ...WRITTEN, type: 'note', run_id, content }),
  userMessage: (run_id: string, content: string): UserMessage => ({ ...WRITTEN, type: 'user_message', run_id, content }),
  assistant: (run_id: string, content: string, more: Partial<AssistantMessage> = {}): AssistantMessage => ({
    ...WRITTEN,
    type: 'assistant_message',
    run_id,
    content,
    tool_calls: [],
    finish_reason: 'stop',
    ...more,
  }),
  toolCall: (run_id: string, call_id: string, name: string, args: Record<string, unknown>): ToolCallEntry => ({ ...WRITTEN, type: 'tool_call', run_id, call_id, name, arguments: args }),
  toolResult: (run_id: string, call_id: string, name: string, content: string, success = true): ToolResultEntry => ({
    ...WRITTEN,
    type: 'tool_result',
    run_id,
    call_id,
    name,
    success,
    content,
  }),
  runFinish: (run_id: string, status: string, output: string, more: Partial<RunFinishEntry> = {}): RunFinishEntry => ({
    ...WRITTEN,
    type: 'run_finish',
    run_id,
    status,
    state: status === 'success' ? 'completed' : 'failed',
    output,
    instructions: [],
    ...more,
  }),
  contextUpdate: (run_id: string): ContextUpdate => ({ ...WRITTEN, type: 'context_update', run_id, kind: 'x', messages_before: 1, messages_after: 1 }),
  restore: (run_id: string, fields: Omit<RestoreEntry, 'type' | 'run_id' | 'model_call_index' | 'ts'>): RestoreEntry => ({ ...WRITTEN, type: 'restore', run_id, ...fields }),
};
