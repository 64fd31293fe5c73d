import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finalStatusText, RunView, toolTarget, truncate } from '../../runView';
import { runResult } from './results';

describe('RunView.statusText', () => {
  it('follows status and steps', () => {
    const view = new RunView('r1');
    assert.equal(view.statusText(), '$(sync~spin) Agent · preparing');
    view.onStatus({ runId: 'r1', state: 'model_running' });
    assert.equal(view.statusText(), '$(sync~spin) Agent · thinking');
    view.onStep({ runId: 'r1', step: 3, maxSteps: 20, callId: 'c1', phase: 'tool_start', tool: 'edit_file', args: { path: 'src/app.py' } });
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 3/20 · edit_file app.py');
    view.onStatus({ runId: 'r1', state: 'awaiting_human' });
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 3/20 · waiting for you');
    view.onStatus({ runId: 'r1', state: 'tool_running' });
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 3/20 · edit_file app.py');
    view.onStep({ runId: 'r1', step: 3, maxSteps: 20, callId: 'c1', phase: 'tool_end', tool: 'edit_file', args: {}, success: true });
    view.onStatus({ runId: 'r1', state: 'model_running' });
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 3/20 · thinking');
  });

  it('shows a command target in full', () => {
    const view = new RunView('r');
    view.onStep({ runId: 'r', step: 1, maxSteps: 5, callId: 'c1', phase: 'tool_start', tool: 'run_command', args: { command: 'pytest -q' } });
    assert.equal(view.statusText(), '$(sync~spin) Agent · step 1/5 · run_command pytest -q');
  });
});

describe('toolTarget', () => {
  it('picks the telling argument', () => {
    assert.equal(toolTarget({ path: 'a/b/c.py', content: 'x' }), 'c.py');
    assert.equal(toolTarget({ path: 'a/b/c.py' }, true), 'a/b/c.py');
    assert.equal(toolTarget({ pattern: 'TODO' }), 'TODO');
    assert.equal(toolTarget({ other: 1 }), undefined);
    assert.equal(toolTarget(undefined), undefined);
  });

  it('truncates', () => {
    assert.equal(truncate('a   b\nc', 10), 'a b c');
    assert.equal(truncate('abcdefghijk', 5), 'abcd…');
  });
});

describe('finalStatusText', () => {
  it('covers success, partial, failed, cancelled and errors', () => {
    assert.equal(finalStatusText(runResult({ status: 'success', steps: 3 })), '$(check) Agent · done (3 steps)');
    assert.equal(finalStatusText(runResult({ status: 'success', steps: 1 })), '$(check) Agent · done (1 step)');
    assert.equal(
      finalStatusText(runResult({ status: 'partial', steps: 20, output: '\nReached max steps\nmore' })),
      '$(warning) Agent · partial (20 steps): Reached max steps',
    );
    assert.equal(finalStatusText(runResult({ status: 'failed', output: 'model error: 401' })), '$(error) Agent · failed: model error: 401');
    assert.equal(finalStatusText(runResult({ status: 'partial' }), undefined, true), '$(circle-slash) Agent · cancelled');
    assert.equal(finalStatusText(undefined, 'the server stopped'), '$(error) Agent · failed: the server stopped');
  });

  it('says how many of the run\'s changes wait for review, not its steps', () => {
    assert.equal(finalStatusText(runResult({ status: 'success', steps: 1 }), undefined, false, 2), '$(check) Agent · done · 2 to review');
    assert.equal(finalStatusText(runResult({ status: 'partial', steps: 4, output: 'Stopped' }), undefined, false, 1), '$(warning) Agent · partial · 1 to review: Stopped');
    assert.equal(finalStatusText(runResult({ status: 'partial' }), undefined, true, 3), '$(circle-slash) Agent · cancelled · 3 to review');
    assert.equal(finalStatusText(runResult({ status: 'success', steps: 1 }), undefined, false, 0), '$(check) Agent · done (1 step)');
  });
});
