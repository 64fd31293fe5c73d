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
