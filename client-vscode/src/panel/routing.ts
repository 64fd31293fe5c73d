/**
 * Which run a server question belongs to, and whether the panel answers it. Pure,
 * unit-tested. Approvals (`window/showMessageRequest`) carry no runId: the run they belong
 * to is the one waiting for a human (the server sends `agent/status awaiting_human` before it
 * asks), else the only run in flight. When that is not clear, or the run was not started
 * from the panel, the answer is undefined and VS Code's own box asks, as before.
 */

export interface RunForRouting {
  runId: string;
  /** Started from the panel: its questions are answered there. */
  routed: boolean;
  state: string;
}

export function routedRun(runs: readonly RunForRouting[], runId?: string): string | undefined {
  if (runId !== undefined) {
    return runs.find((run) => run.runId === runId)?.routed ? runId : undefined;
  }
  const waiting = runs.filter((run) => run.state === 'awaiting_human');
  const candidates = waiting.length > 0 ? waiting : runs;
  if (candidates.length !== 1) {
    return undefined;
  }
  return candidates[0].routed ? candidates[0].runId : undefined;
}
