import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transcript } from '../../transcript';
import type { StepParams, StreamParams } from '../../protocol';
import { runResult } from './results';

/** A transcript writing into a string, with shorthands for the notifications of run `r`. */
function make() {
  let text = '';
  const transcript = new Transcript({ append: (t) => (text += t) });
  const stream = (seq: number, chunk: string, extra: Partial<StreamParams> = {}): void =>
    transcript.stream({ runId: 'r', seq, text: chunk, ...extra });
  const tool = (
    step: number,
    maxSteps: number,
    phase: StepParams['phase'],
    tool: string,
    extra: Partial<StepParams> = {},
  ): void => transcript.step({ runId: 'r', step, maxSteps, callId: 'c1', phase, tool, args: {}, ...extra });
  const shows = (expected: string): void => assert.equal(text, expected);
  return { transcript, stream, tool, shows };
}

describe('Transcript', () => {
  it('names the instruction files of a run, and those that join later', () => {
    const { transcript, stream, shows } = make();
    transcript.instructions({ runId: 'r', files: ['AGENTS.md', 'web/AGENTS.md'] });
    stream(1, 'Reading.');
    transcript.instructions({ runId: 'r', files: ['api/AGENTS.md'], joined: true });
    transcript.instructions({ runId: 'r', files: [] });
    shows('Instructions: AGENTS.md, web/AGENTS.md\nReading.\nInstructions joined: api/AGENTS.md\n');
  });

  it('names the model as each loop of a run starts', () => {
    const { transcript, stream, shows } = make();
    transcript.status('r', 'preparing', undefined, 'openai/planner');
    stream(1, 'Plan.');
    transcript.status('r', 'model_running');
    transcript.status('r', 'preparing', undefined, 'openai/builder');
    shows('Model: openai/planner\nPlan.\nModel: openai/builder\n');
  });

  it('writes streamed text in seq order and drops duplicates', () => {
    const { stream, shows } = make();
    stream(1, 'Hello');
    stream(3, ' world');
    shows('Hello');
    stream(2, ',');
    stream(2, ',');
    shows('Hello, world');
  });

  it('says so when a cut stream restarts, in seq order', () => {
    const { stream, shows } = make();
    stream(1, 'The answ');
    stream(3, 'The answer.');
    stream(2, '', { restart: true, discard: 8, reason: 'the connection broke', attempt: 2 });
    shows("The answ\n… the model's stream was cut (the connection broke); the text above is void and the answer restarts\nThe answer.");
  });

  it('lists tool calls on their own lines as they start and end', () => {
    const { stream, tool, shows } = make();
    stream(0, 'Let me edit.');
    tool(3, 20, 'tool_start', 'edit_file', { args: { path: 'src/app.py' } });
    tool(3, 20, 'tool_end', 'edit_file', { success: true, summary: 'applied 2 hunks' });
    tool(4, 20, 'tool_start', 'run_command', { args: { command: 'pytest' } });
    tool(4, 20, 'tool_end', 'run_command', { success: false, summary: 'exit 1' });
    shows('Let me edit.\n▶ step 3/20 edit_file src/app.py\n  ✓ edit_file applied 2 hunks\n▶ step 4/20 run_command pytest\n  ✗ run_command exit 1\n');
  });

  it('flushes buffered text past a gap before a step', () => {
    const { stream, tool, shows } = make();
    stream(1, 'a');
    stream(3, 'c');
    tool(1, 2, 'tool_start', 'read_file', { args: { path: 'x' } });
    shows('ac\n▶ step 1/2 read_file x\n');
  });

  it('renders the plan as a checklist', () => {
    const { transcript, shows } = make();
    transcript.plan({
      runId: 'r',
      goal: 'Fix the bug',
      steps: [
        { text: 'read', status: 'done' },
        { text: 'edit', status: 'in_progress' },
        { text: 'test', status: 'pending' },
      ],
    });
    shows('Plan: Fix the bug\n  [x] read\n  [~] edit\n  [ ] test\n');
  });

  it('frames a run and prints the output when nothing was streamed', () => {
    const { transcript, shows } = make();
    transcript.begin('r9', 'do it', 'build');
    transcript.end(
      'r9',
      runResult({
        status: 'success',
        output: 'Done.',
        steps: 2,
        duration_seconds: 1.25,
        usage: { prompt_tokens: 90, completion_tokens: 9, total_tokens: 99, cached_tokens: 0 },
      }),
    );
    shows('\n━━ Agent run r9 (build) ━━\n> do it\nDone.\n━━ success · 2 steps · 1.3 s · 99 tokens ━━\n');
  });

  it('names the run’s folder when it is given (a workspace of several folders)', () => {
    const { transcript, shows } = make();
    transcript.begin('r1', 'go', 'build', 'web');
    shows('\n━━ Agent run r1 (build, in web) ━━\n> go\n');
  });

  it('ends a failed or cancelled run', () => {
    const { transcript, shows } = make();
    transcript.end('a', undefined, 'boom');
    transcript.end('b', runResult({ status: 'partial', steps: 2, duration_seconds: 3 }), undefined, true);
    shows('━━ failed: boom ━━\n━━ partial (cancelled) · 2 steps · 3.0 s ━━\n');
  });

  it("tells what became of the user's review in their words", () => {
    const { transcript, stream, shows } = make();
    stream(1, 'Working');
    transcript.review({ state: 'told', summary: 'calc.py: 1 kept, 1 undone', runId: 'r', note: 'The user reviewed …' });
    transcript.review({ state: 'waiting', summary: 'calc.py: 1 kept' });
    transcript.review({ state: 'told', summary: 'a.py: 1 undone', runId: 'r2', note: '…', otherSession: true });
    transcript.review({ state: 'lost', summary: 'b.py: 1 kept', why: 'the agent server stopped before its next step' });
    shows(
      [
        'Working',
        '◆ Told the agent your review (run r): calc.py: 1 kept, 1 undone',
        '◆ Your review waits for the agent (told when you next talk to it): calc.py: 1 kept',
        '◆ Told the agent your review (run r2) (in another conversation: its own is told when you continue it): a.py: 1 undone',
        '◆ Not told to the agent (the agent server stopped before its next step): b.py: 1 kept',
        '',
      ].join('\n'),
    );
  });
});
