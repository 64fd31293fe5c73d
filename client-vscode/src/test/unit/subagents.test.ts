import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approvalSubagent, askedBy, emptyConversation, fromEntries, reduce, type Action, type Conversation, type Item } from '../../panel/model';
import { reduceWorktrees, emptyWorktrees } from '../../panel/worktrees';
import { subagentAuthors } from '../../review/protocol';
import type { SessionEntry, StepParams, SubagentParams } from '../../protocol';
import { RunView } from '../../runView';
import { Transcript } from '../../transcript';

function run(actions: Action[], start: Conversation = emptyConversation()): Conversation {
  return actions.reduce(reduce, start);
}

type Tool = Extract<Item, { kind: 'tool' }>;

function tools(c: Conversation): Tool[] {
  return c.items.filter((it): it is Tool => it.kind === 'tool');
}

const delegateArgs = { agent: 'explore', task: 'find foo', wait: true };
const delegateStart: StepParams = { runId: 'r1', step: 3, maxSteps: 20, phase: 'tool_start', tool: 'delegate', callId: 'd1', args: delegateArgs };
const delegateEnd: StepParams = { ...delegateStart, phase: 'tool_end', success: true, summary: 'foo is in a.py' };
const childStarted: SubagentParams = { runId: 'r1', callId: 'd1', agent: 'explore', phase: 'start', task: 'find foo', model: 'openai/small', background: false };
const childEnded: SubagentParams = {
  runId: 'r1',
  callId: 'd1',
  agent: 'explore',
  phase: 'end',
  status: 'success',
  summary: 'foo is in a.py',
  steps: 2,
  usage: { prompt_tokens: 5000, completion_tokens: 430, total_tokens: 5430, cached_tokens: 0 },
};

function childStep(phase: 'tool_start' | 'tool_end', callId: string, tool: string, args: Record<string, unknown>, extra: Partial<StepParams> = {}): StepParams {
  return { runId: 'r1', step: 1, maxSteps: 10, phase, tool, callId, args, parentCallId: 'd1', agent: 'explore', ...extra };
}

const grepStart = childStep('tool_start', 'd1/c1', 'grep', { pattern: 'foo' });
const grepEnd = childStep('tool_end', 'd1/c1', 'grep', { pattern: 'foo' }, { success: true, summary: '3 matches' });
const readStart = childStep('tool_start', 'd1/c2', 'read_file', { path: 'a.py' }, { step: 2 });

describe('panel model: a subagent nested under its delegate card', () => {
  it('shows the agent, task, model and each of its tool calls with their state in the one card', () => {
    const c = run([
      { type: 'runStarted', runId: 'r1', prompt: 'Where is foo?', agent: 'build' },
      { type: 'step', params: delegateStart },
      { type: 'subagent', params: childStarted },
      { type: 'step', params: grepStart },
      { type: 'step', params: grepEnd },
      { type: 'step', params: readStart },
    ]);
    // One card: the subagent's calls are not cards of the run.
    assert.deepEqual(
      tools(c).map((t) => t.callId),
      ['d1'],
    );
    const child = tools(c)[0].subagent;
    assert.ok(child);
    assert.equal(child.agent, 'explore');
    assert.equal(child.task, 'find foo');
    assert.equal(child.model, 'openai/small');
    assert.deepEqual(
      child.steps.map((s) => [s.tool, s.summary, s.state, s.result]),
      [
        ['grep', 'pattern=foo', 'done', '3 matches'],
        ['read_file', 'path=a.py', 'running', undefined],
      ],
    );
    assert.equal(child.status, undefined);
    // The header names the subagent on the run's step.
    assert.equal(c.stepText, 'Step 3/20 · explore: read_file');
  });

  it('ends with its status, steps and tokens, and the delegate card ends with the report', () => {
    const c = run([
      { type: 'runStarted', runId: 'r1', prompt: 'p' },
      { type: 'step', params: delegateStart },
      { type: 'subagent', params: childStarted },
      { type: 'step', params: grepStart },
      { type: 'subagent', params: childEnded },
      { type: 'step', params: delegateEnd },
    ]);
    const card = tools(c)[0];
    assert.equal(card.state, 'done');
    assert.equal(card.result, 'foo is in a.py');
    const child = card.subagent;
    assert.ok(child);
    assert.equal(child.status, 'success');
    assert.equal(child.stepCount, 2);
    assert.equal(child.tokens, 5430);
    assert.equal(child.report, 'foo is in a.py');
    // A call it left running ended with it.
    assert.equal(child.steps[0].state, 'interrupted');
  });

  it('marks a subagent the run ended before it as stopped', () => {
    const c = run([
      { type: 'runStarted', runId: 'r1', prompt: 'p' },
      { type: 'step', params: delegateStart },
      { type: 'subagent', params: childStarted },
      { type: 'step', params: grepStart },
      { type: 'runEnded', runId: 'r1', cancelled: true },
    ]);
    const card = tools(c)[0];
    assert.equal(card.state, 'interrupted');
    assert.equal(card.subagent?.status, 'interrupted');
    assert.equal(card.subagent?.steps[0].state, 'interrupted');
  });

  it('keeps a background subagent working after its delegate call returned', () => {
    const c = run([
      { type: 'runStarted', runId: 'r1', prompt: 'p' },
      { type: 'step', params: { ...delegateStart, args: { ...delegateArgs, wait: false } } },
      { type: 'subagent', params: { ...childStarted, background: true } },
      { type: 'step', params: { ...delegateEnd, summary: 'started in the background' } },
      { type: 'step', params: grepStart },
    ]);
    const card = tools(c)[0];
    assert.equal(card.state, 'done');
    assert.equal(card.subagent?.background, true);
    assert.equal(card.subagent?.steps[0].state, 'running');
  });

  it('ignores a subagent step whose delegate card it does not have', () => {
    const before = run([{ type: 'runStarted', runId: 'r1', prompt: 'p' }]);
    const after = run([{ type: 'step', params: grepStart }, { type: 'subagent', params: childStarted }], before);
    assert.equal(after, before);
  });

  it('shows what a stored session kept of a subagent in its delegate card', () => {
    const at = { run_id: 'r1', model_call_index: 0, ts: 1 };
    const entries: SessionEntry[] = [
      { ...at, type: 'run_start', prompt: 'Where is foo?', agent: 'build', instructions: [] },
      { ...at, type: 'tool_call', call_id: 'd1', name: 'delegate', arguments: delegateArgs },
      { ...at, type: 'subagent', call_id: 'd1', agent: 'explore', task: 'find foo', status: 'success', steps: 3, model: 'openai/small', prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000, report: 'foo is in a.py' },
      { ...at, type: 'tool_result', call_id: 'd1', name: 'delegate', success: true, content: 'foo is in a.py' },
    ];
    const c = fromEntries('s1', entries);
    const child = tools(c)[0].subagent;
    assert.ok(child, JSON.stringify(c.items));
    assert.deepEqual(
      [child.agent, child.task, child.model, child.status, child.stepCount, child.tokens, child.report, child.steps.length],
      ['explore', 'find foo', 'openai/small', 'success', 3, 1000, 'foo is in a.py', 0],
    );
  });

  it('reads the subagent a question of ask_user comes from', () => {
    assert.deepEqual(askedBy('[explore] Which file?'), { subagent: 'explore', text: 'Which file?' });
    assert.deepEqual(askedBy('Which [file]?'), { text: 'Which [file]?' });
  });

  it('reads the subagent an approval is for from its first line', () => {
    assert.equal(approvalSubagent('agentls wants to run execute_command (subagent explore).\n\nls'), 'explore');
    assert.equal(approvalSubagent('agentls wants to run execute_command.\n\n(subagent x).'), undefined);
  });
});

describe('status bar and transcript: a subagent', () => {
  it("shows the subagent's call on the run's step while it works, and the run's again after", () => {
    const view = new RunView('r1');
    view.onStatus({ runId: 'r1', state: 'tool_running' });
    view.onStep(delegateStart);
    view.onStep(grepStart);
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 3/20 · explore: grep foo');
    view.onSubagent(childEnded);
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 3/20 · delegate explore');
    view.onStep(delegateEnd);
    view.onStep({ runId: 'r1', step: 4, maxSteps: 20, phase: 'tool_start', tool: 'read_file', callId: 'c9', args: { path: 'a.py' } });
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 4/20 · read_file a.py');
  });

  it('writes its calls indented under the delegate line, and its start and end', () => {
    const lines: string[] = [];
    const transcript = new Transcript({ append: (text) => lines.push(text) });
    transcript.begin('r1', 'p', 'build');
    transcript.step(delegateStart);
    transcript.subagent(childStarted);
    transcript.step(grepStart);
    transcript.step(grepEnd);
    transcript.subagent(childEnded);
    transcript.step(delegateEnd);
    const text = lines.join('');
    assert.ok(
      text.includes(
        [
          '▶ step 3/20 delegate explore',
          '  ↳ explore (openai/small) started: find foo',
          '    explore › grep foo ✓ 3 matches',
          '  ✓ explore success · 2 steps · 5430 tokens',
          '  ✓ delegate foo is in a.py',
        ].join('\n'),
      ),
      text,
    );
  });

  it("shows a worktree run's subagent call by its name", () => {
    let s = reduceWorktrees(emptyWorktrees(), { type: 'runStarted', runId: 'r1', name: 'wt', prompt: 'p' });
    s = reduceWorktrees(s, { type: 'step', params: grepStart });
    assert.equal(s.runs[0].stepText, 'explore: grep');
  });

  it("names the subagent of an edit under inline review from its annotations' label", () => {
    const authors = subagentAuthors({
      edit: {
        changeAnnotations: {
          'p:edit:a.py:0': { label: 'subagent explore: edit a.py', needsConfirmation: true },
          'p:edit:b.py:0': { label: 'agent: edit b.py', needsConfirmation: true },
        },
      },
    } as never);
    assert.deepEqual([...authors], [['p:edit:a.py:0', 'explore']]);
  });
});
