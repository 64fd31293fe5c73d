import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorktreeInfo } from '../../protocol';
import {
  emptyWorktrees,
  outcomeText,
  reduceWorktrees,
  statsText,
  worktreeCards,
  worktreeName,
  type WorktreeAction,
  type WorktreeSessions,
} from '../../panel/worktrees';

function run(actions: WorktreeAction[], start: WorktreeSessions = emptyWorktrees()): WorktreeSessions {
  return actions.reduce(reduceWorktrees, start);
}

function info(name: string, patch: Partial<WorktreeInfo> = {}): WorktreeInfo {
  return { name, branch: `agentls/${name}`, path: `/repo/.git/agentls-worktrees/${name}`, base: 'abc', created: 1, state: 'ready', files: 1, added: 2, removed: 1, ...patch };
}

const twoRunning: WorktreeAction[] = [
  { type: 'runStarted', runId: 'r1', name: 'one', prompt: 'first task', agent: 'build' },
  { type: 'runStarted', runId: 'r2', name: 'two', prompt: 'second task', agent: 'build' },
];

describe('panel worktree sessions', () => {
  it('shows two runs side by side, each with its own live state', () => {
    const s = run([
      ...twoRunning,
      { type: 'status', params: { runId: 'r1', state: 'model_running' } },
      { type: 'step', params: { runId: 'r2', step: 1, maxSteps: 10, phase: 'tool_start', tool: 'write_file', callId: 'c1', args: {} } },
      { type: 'status', params: { runId: 'r2', state: 'tool_running' } },
    ]);
    const cards = worktreeCards(s);
    assert.deepEqual(
      cards.map((c) => [c.name, c.kind, c.state, c.stepText, c.runId]),
      [
        ['one', 'running', 'thinking', undefined, 'r1'],
        ['two', 'running', 'running a tool', 'Step 1/10 · write_file', 'r2'],
      ],
    );
    assert.ok(cards.every((c) => !c.canApply && !c.canDiscard), 'nothing is applied or discarded while it works');
  });

  it('a run listed as running by agent/worktrees keeps its live state and its prompt', () => {
    const s = run([...twoRunning, { type: 'listed', worktrees: [info('one', { state: 'running', files: 0, added: 0, removed: 0 })] }]);
    const cards = worktreeCards(s);
    assert.deepEqual(
      cards.map((c) => [c.name, c.kind, c.prompt]),
      [
        ['one', 'running', 'first task'],
        ['two', 'running', 'second task'],
      ],
    );
  });

  it("a run's end takes its result's worktree (stats) and offers Apply and Discard", () => {
    const s = run([
      ...twoRunning,
      { type: 'runEnded', runId: 'r1', result: { status: 'success', output: 'done', worktree: info('one', { files: 2, added: 14, removed: 3 }) }, cancelled: false },
    ]);
    const [one, two] = worktreeCards(s);
    assert.equal(one.kind, 'ready');
    assert.deepEqual(one.stats, { files: 2, added: 14, removed: 3 });
    assert.equal(statsText(one.stats!), '+14 −3 in 2 files');
    assert.ok(one.canApply && one.canDiscard);
    assert.equal(one.runId, undefined);
    assert.equal(two.kind, 'running', 'the other run goes on');
  });

  it('a worktree without changes cannot be applied; one with uncommitted changes can only be discarded', () => {
    const s = run([{ type: 'listed', worktrees: [info('empty', { files: 0, added: 0, removed: 0 }), info('killed', { state: 'uncommitted changes' })] }]);
    const [empty, killed] = worktreeCards(s);
    assert.equal(statsText(empty.stats!), 'no changes');
    assert.equal(empty.canApply, false);
    assert.equal(empty.canDiscard, true);
    assert.equal(killed.canApply, false);
    assert.equal(killed.canDiscard, true);
  });

  it('a failed or cancelled run says so on its card', () => {
    const s = run([
      ...twoRunning,
      { type: 'runEnded', runId: 'r1', error: 'the server stopped', cancelled: false },
      { type: 'runEnded', runId: 'r2', result: { status: 'failed', output: 'model error' }, cancelled: true },
    ]);
    const [one, two] = worktreeCards(s);
    assert.deepEqual([one.kind, one.runStatus, one.detail], ['gone', 'failed', 'the server stopped']);
    assert.deepEqual([two.runStatus, two.runId], ['cancelled', undefined]);
    // Later notifications of an ended run change nothing.
    const after = reduceWorktrees(s, { type: 'status', params: { runId: 'r1', state: 'model_running' } });
    assert.equal(worktreeCards(after)[0].runStatus, 'failed');
  });

  it('apply: busy while asked, then the outcome; a conflict lists its files and reasons', () => {
    let s = run([{ type: 'listed', worktrees: [info('one'), info('two')] }, { type: 'busy', name: 'one' }]);
    assert.deepEqual(
      worktreeCards(s).map((c) => [c.busy, c.canApply, c.canDiscard]),
      [
        [true, false, false],
        [false, true, true],
      ],
    );
    s = reduceWorktrees(s, { type: 'applied', name: 'one', result: { status: 'applied', message: 'applied', files: ['greet.py'], merged: [], conflicts: [], pending: true } });
    const one = worktreeCards(s)[0];
    assert.equal(one.busy, false);
    assert.equal(outcomeText(one.outcome!), 'Applied: greet.py — keep or undo it in the editor.');
    assert.deepEqual([one.canApply, one.canDiscard], [false, true], 'applied once: not offered again; it may still be discarded');
    const conflict = { path: 'calc.py', reason: 'you changed the same lines since the worktree was made' };
    s = reduceWorktrees(s, { type: 'applied', name: 'two', result: { status: 'conflict', message: 'not applied', files: ['calc.py'], merged: [], conflicts: [conflict], pending: false } });
    const two = worktreeCards(s)[1];
    assert.equal(two.outcome?.status, 'conflict');
    assert.deepEqual(two.outcome?.conflicts, [conflict]);
    assert.match(outcomeText(two.outcome!), /nothing was written/);
    assert.equal(two.canApply, true, 'a conflict may be resolved and applied again');
  });

  it('discard: the card says so until the list no longer holds it; a refusal is shown', () => {
    let s = run([{ type: 'listed', worktrees: [info('one'), info('two')] }, { type: 'busy', name: 'one' }, { type: 'discarded', name: 'one' }]);
    assert.deepEqual(
      worktreeCards(s).map((c) => [c.name, c.state]),
      [
        ['two', 'ready'],
        ['one', 'discarded'],
      ],
    );
    s = reduceWorktrees(s, { type: 'failed', name: 'two', action: 'discard', error: 'two holds changes nobody committed' });
    const two = worktreeCards(s)[0];
    assert.equal(outcomeText(two.outcome!), 'Could not discard: two holds changes nobody committed');
    assert.equal(two.canDiscard, true, 'the user may try again');
  });

  it('a new run in a worktree clears what was said of it before', () => {
    const s = run([
      { type: 'listed', worktrees: [info('one')] },
      { type: 'failed', name: 'one', action: 'apply', error: 'boom' },
      { type: 'runStarted', runId: 'r3', name: 'one', prompt: 'more' },
    ]);
    const [one] = worktreeCards(s);
    assert.equal(one.outcome, undefined);
    assert.equal(one.kind, 'running');
  });

  it('a failed list is said, and the next good one clears it', () => {
    let s = run([{ type: 'listFailed', error: 'not a git repository' }]);
    assert.equal(s.listError, 'not a git repository');
    s = reduceWorktrees(s, { type: 'listed', worktrees: [] });
    assert.equal(s.listError, undefined);
  });

  it('names new worktrees validly and uniquely per run', () => {
    const now = new Date('2026-11-26T23:05:09Z');
    assert.equal(worktreeName(0, now), 'wt-1126-230509-1');
    assert.notEqual(worktreeName(1, now), worktreeName(0, now));
    assert.match(worktreeName(7, now), /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
  });
});
