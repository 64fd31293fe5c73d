import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transcript } from '../../transcript';
import { runResult } from './results';

function make() {
  let text = '';
  const transcript = new Transcript({ append: (t) => (text += t) });
  return { transcript, text: () => text };
}

describe('Transcript', () => {
  it('writes streamed text in seq order and drops duplicates', () => {
    const { transcript, text } = make();
    transcript.stream({ runId: 'r', seq: 1, text: 'Hello' });
    transcript.stream({ runId: 'r', seq: 3, text: ' world' });
    assert.equal(text(), 'Hello');
    transcript.stream({ runId: 'r', seq: 2, text: ',' });
    transcript.stream({ runId: 'r', seq: 2, text: ',' });
    assert.equal(text(), 'Hello, world');
  });

  it('says so when a cut stream restarts, in seq order', () => {
    const { transcript, text } = make();
    transcript.stream({ runId: 'r', seq: 1, text: 'The answ' });
    transcript.stream({ runId: 'r', seq: 3, text: 'The answer.' });
    transcript.stream({ runId: 'r', seq: 2, text: '', restart: true, discard: 8, reason: 'the connection broke', attempt: 2 });
    assert.equal(
      text(),
      "The answ\n… the model's stream was cut (the connection broke); the text above is void and the answer restarts\nThe answer.",
    );
  });

  it('lists tool calls on their own lines as they start and end', () => {
    const { transcript, text } = make();
    transcript.stream({ runId: 'r', seq: 0, text: 'Let me edit.' });
    transcript.step({ runId: 'r', step: 3, maxSteps: 20, callId: 'c1', phase: 'tool_start', tool: 'edit_file', args: { path: 'src/app.py' } });
    transcript.step({ runId: 'r', step: 3, maxSteps: 20, callId: 'c1', phase: 'tool_end', tool: 'edit_file', args: {}, success: true, summary: 'applied 2 hunks' });
    transcript.step({ runId: 'r', step: 4, maxSteps: 20, callId: 'c1', phase: 'tool_start', tool: 'run_command', args: { command: 'pytest' } });
    transcript.step({ runId: 'r', step: 4, maxSteps: 20, callId: 'c1', phase: 'tool_end', tool: 'run_command', args: {}, success: false, summary: 'exit 1' });
    assert.equal(
      text(),
      'Let me edit.\n▶ step 3/20 edit_file src/app.py\n  ✓ edit_file applied 2 hunks\n▶ step 4/20 run_command pytest\n  ✗ run_command exit 1\n',
    );
  });

  it('flushes buffered text past a gap before a step', () => {
    const { transcript, text } = make();
    transcript.stream({ runId: 'r', seq: 1, text: 'a' });
    transcript.stream({ runId: 'r', seq: 3, text: 'c' });
    transcript.step({ runId: 'r', step: 1, maxSteps: 2, callId: 'c1', phase: 'tool_start', tool: 'read_file', args: { path: 'x' } });
    assert.equal(text(), 'ac\n▶ step 1/2 read_file x\n');
  });

  it('renders the plan as a checklist', () => {
    const { transcript, text } = make();
    transcript.plan({
      runId: 'r',
      goal: 'Fix the bug',
      steps: [
        { text: 'read', status: 'done' },
        { text: 'edit', status: 'in_progress' },
        { text: 'test', status: 'pending' },
      ],
    });
    assert.equal(text(), 'Plan: Fix the bug\n  [x] read\n  [~] edit\n  [ ] test\n');
  });

  it('frames a run and prints the output when nothing was streamed', () => {
    const { transcript, text } = make();
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
    assert.equal(text(), '\n━━ Agent run r9 (build) ━━\n> do it\nDone.\n━━ success · 2 steps · 1.3 s · 99 tokens ━━\n');
  });

  it('ends a failed or cancelled run', () => {
    const { transcript, text } = make();
    transcript.end('a', undefined, 'boom');
    transcript.end('b', runResult({ status: 'partial', steps: 2, duration_seconds: 3 }), undefined, true);
    assert.equal(text(), '━━ failed: boom ━━\n━━ partial (cancelled) · 2 steps · 3.0 s ━━\n');
  });
});
