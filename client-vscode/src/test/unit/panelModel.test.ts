import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IncrementalMarkdown, isSafeLink, renderMarkdown } from '../../panel/markdown';
import { routedRun } from '../../panel/routing';
import {
  argsSummary,
  canUndo,
  emptyConversation,
  fromEntries,
  instructionLinks,
  mergeInstructions,
  pendingQuestions,
  reduce,
  undoOffer,
  type Action,
  type Conversation,
  type Item,
} from '../../panel/model';
import type { SessionEntry } from '../../protocol';
import { runResult, stored } from './results';

function run(actions: Action[], start: Conversation = emptyConversation()): Conversation {
  return actions.reduce(reduce, start);
}

function kinds(c: Conversation): string[] {
  return c.items.map((it) => it.kind);
}

function item<K extends Item['kind']>(c: Conversation, kind: K, index = 0): Extract<Item, { kind: K }> {
  const found = c.items.filter((it) => it.kind === kind)[index];
  assert.ok(found, `no ${kind} #${index} in ${JSON.stringify(kinds(c))}`);
  return found as Extract<Item, { kind: K }>;
}

const started: Action = { type: 'runStarted', runId: 'r1', prompt: 'Fix it', agent: 'build' };

describe('panel model: a run', () => {
  it('concatenates streamed text into one block until a tool step, then starts a new block', () => {
    const c = run([
      started,
      { type: 'status', params: { runId: 'r1', state: 'model_running' } },
      { type: 'stream', params: { runId: 'r1', seq: 1, text: 'I will ' } },
      { type: 'stream', params: { runId: 'r1', seq: 2, text: 'read it.' } },
      { type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_start', tool: 'read_file', callId: 'c1', args: { path: 'a.py' } } },
      { type: 'stream', params: { runId: 'r1', seq: 3, text: 'Done.' } },
    ]);
    assert.deepEqual(kinds(c), ['user', 'text', 'tool', 'text']);
    assert.equal(item(c, 'text', 0).text, 'I will read it.');
    assert.equal(item(c, 'text', 0).streaming, false);
    assert.equal(item(c, 'text', 1).text, 'Done.');
    assert.equal(item(c, 'text', 1).streaming, true);
    assert.equal(c.state, 'model_running');
    assert.equal(c.stepText, 'Step 1/5 · read_file');
  });

  it('links the card of a tool that ran a command to the run terminal, and keeps the link when it ends', () => {
    const start: Action = { type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_start', tool: 'execute_command', callId: 'c1', args: { command: 'ls' } } };
    let c = run([started, start]);
    assert.equal(item(c, 'tool').terminal, undefined);
    c = run([{ type: 'commandStarted', runId: 'r1', callId: 'c1' }], c);
    assert.equal(item(c, 'tool').terminal, true);
    const same = run([{ type: 'commandStarted', runId: 'r1', callId: 'c1' }], c);
    assert.equal(same.rev, c.rev);
    c = run([{ type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_end', tool: 'execute_command', callId: 'c1', args: {}, success: true, summary: 'Exit code: 0' } }], c);
    assert.equal(item(c, 'tool').terminal, true);
    assert.equal(item(c, 'tool').state, 'done');
    const other = run([{ type: 'commandStarted', runId: 'r1', callId: 'nope' }], c);
    assert.equal(other.rev, c.rev);
  });

  it('turns a tool card from running to done or failed, with the result summary', () => {
    const start: Action = { type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_start', tool: 'execute_command', callId: 'c1', args: { command: 'pytest -q' } } };
    let c = run([started, start]);
    const card = item(c, 'tool');
    assert.equal(card.state, 'running');
    assert.equal(card.summary, 'command=pytest -q');
    c = reduce(c, { type: 'step', params: { ...start.params, phase: 'tool_end', success: false, summary: '1 failed' } });
    assert.equal(c.items.length, 2, 'the end updates the same card');
    assert.equal(item(c, 'tool').state, 'failed');
    assert.equal(item(c, 'tool').result, '1 failed');
    assert.ok(item(c, 'tool').rev > card.rev, 'a changed item gets a new rev');
  });

  it('links edit steps to their file', () => {
    const c = run([started, { type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_start', tool: 'edit_file', callId: 'c1', args: { path: 'src/a.py', old_str: 'x' } } }]);
    assert.equal(item(c, 'tool').path, 'src/a.py');
    const read = run([started, { type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_start', tool: 'read_file', callId: 'c1', args: { path: 'a.py' } } }]);
    assert.equal(item(read, 'tool').path, undefined);
  });

  it('updates one plan checklist in place', () => {
    const c = run([
      started,
      { type: 'plan', params: { runId: 'r1', goal: 'g', steps: [{ text: 'a', status: 'in_progress' }, { text: 'b', status: 'pending' }] } },
      { type: 'stream', params: { runId: 'r1', seq: 1, text: 'working' } },
      { type: 'plan', params: { runId: 'r1', goal: 'g', steps: [{ text: 'a', status: 'done' }, { text: 'b', status: 'in_progress' }] } },
    ]);
    assert.deepEqual(kinds(c), ['user', 'plan', 'text']);
    assert.deepEqual(item(c, 'plan').steps.map((s) => s.status), ['done', 'in_progress']);
  });

  it('keeps approvals and questions open until answered, and withdraws them when the run ends', () => {
    let c = run([
      started,
      { type: 'approval', id: 'a1', runId: 'r1', message: 'agentls wants to run execute_command.', actions: ['Allow once', 'Deny'] },
      { type: 'ask', id: 'q1', runId: 'r1', question: 'Which?', default: 'x' },
    ]);
    assert.equal(pendingQuestions(c).length, 2);
    c = reduce(c, { type: 'approvalAnswered', id: 'a1', answer: 'Deny' });
    assert.equal(item(c, 'approval').answer, 'Deny');
    assert.equal(pendingQuestions(c).length, 1);
    c = reduce(c, { type: 'runEnded', runId: 'r1', cancelled: true });
    assert.equal(pendingQuestions(c).length, 0);
    assert.equal(item(c, 'ask').answer, null);
  });

  it('ends a run with its status, tokens and cost, and marks running tools interrupted', () => {
    const c = run([
      started,
      { type: 'step', params: { runId: 'r1', step: 1, maxSteps: 5, phase: 'tool_start', tool: 'execute_command', callId: 'c1', args: {} } },
      {
        type: 'runEnded',
        runId: 'r1',
        cancelled: false,
        result: {
          status: 'success',
          steps: 1,
          sessionId: 's1',
          duration_seconds: 2.5,
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cost: 0.0012 } as never,
        },
      },
    ]);
    const end = item(c, 'end');
    assert.equal(end.status, 'success');
    assert.equal(end.tokens, 120);
    assert.equal(end.cost, 0.0012);
    assert.equal(item(c, 'tool').state, 'interrupted');
    assert.equal(c.runId, undefined);
    assert.equal(c.sessionId, 's1', 'the next run continues the session');
  });

  it('shows a cancelled run as cancelled, whatever the result says', () => {
    const c = run([started, { type: 'runEnded', runId: 'r1', cancelled: true, result: { status: 'partial', output: 'Run interrupted' } }]);
    assert.equal(item(c, 'end').status, 'cancelled');
    assert.equal(item(c, 'end').detail, 'Run interrupted');
  });

  it('ignores notifications of other runs for the state line', () => {
    const c = run([started, { type: 'status', params: { runId: 'other', state: 'failed' } }]);
    assert.equal(c.state, 'preparing');
  });

  it('folds thousands of chunks into one block and keeps 500 steps', () => {
    let c = reduce(emptyConversation(), started);
    for (let i = 1; i <= 5000; i += 1) {
      c = reduce(c, { type: 'stream', params: { runId: 'r1', seq: i, text: 'x' } });
    }
    assert.equal(item(c, 'text').text.length, 5000);
    for (let i = 0; i < 500; i += 1) {
      const params = { runId: 'r1', step: i, maxSteps: 500, tool: 'read_file', callId: `c${i}`, args: { path: `f${i}.py` } };
      c = reduce(c, { type: 'step', params: { ...params, phase: 'tool_start' } });
      c = reduce(c, { type: 'step', params: { ...params, phase: 'tool_end', success: true, summary: 'ok' } });
    }
    assert.equal(c.items.filter((it) => it.kind === 'tool').length, 500);
    assert.ok(c.items.filter((it) => it.kind === 'tool').every((it) => it.kind === 'tool' && it.state === 'done'));
  });
});

describe('panel model: the notices of a run', () => {
  it('shows each in order, after the text streamed so far, which it closes', () => {
    const c = run([
      started,
      { type: 'notice', params: { runId: 'r1', level: 'warning', message: 'this folder is not trusted' } },
      { type: 'stream', params: { runId: 'r1', seq: 1, text: 'Looking.' } },
      { type: 'notice', params: { runId: 'r1', level: 'error', message: 'the MCP server "db" did not start' } },
    ]);
    assert.deepEqual(kinds(c), ['user', 'notice', 'text', 'notice']);
    assert.deepEqual(
      c.items.filter((it) => it.kind === 'notice').map((it) => [it.id, it.level, it.message]),
      [
        ['n-r1-0', 'warning', 'this folder is not trusted'],
        ['n-r1-1', 'error', 'the MCP server "db" did not start'],
      ],
    );
    assert.equal(item(c, 'text').streaming, false);
  });
});

describe('panel model: sessions', () => {
  const entries: SessionEntry[] = [
    stored.runStart('r1', 'Add a test', { agent: 'build' }),
    stored.assistant('r1', 'Reading.', { tool_calls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.py' } }] }),
    stored.toolCall('r1', 'c1', 'read_file', { path: 'a.py' }),
    stored.toolResult('r1', 'c1', 'read_file', 'def f(): pass'),
    stored.toolCall('r1', 'c2', 'execute_command', { command: 'pytest' }),
    stored.assistant('r1', 'All good.'),
    stored.runFinish('r1', 'success', 'All good.'),
    stored.contextUpdate('r1'),
  ];

  it('rebuilds a stored session read-only', () => {
    const c = fromEntries('s1', entries);
    assert.equal(c.readOnly, true);
    assert.equal(c.sessionId, 's1');
    assert.equal(c.runId, undefined);
    assert.deepEqual(kinds(c), ['user', 'text', 'tool', 'tool', 'text', 'end']);
    assert.equal(item(c, 'tool', 0).state, 'done');
    assert.equal(item(c, 'tool', 0).result, 'def f(): pass');
    assert.equal(item(c, 'tool', 1).state, 'interrupted', 'a call without a result is not shown as running');
    assert.equal(item(c, 'text', 1).streaming, false);
  });

  it('leaves out an entry of a type it does not know (a newer server wrote it), and what is not an entry', () => {
    const newer = { ...stored.note('r1', 'x'), type: 'from_a_newer_server' } as unknown as SessionEntry;
    const c = fromEntries('s1', [...entries.slice(0, 2), newer, 'not an entry' as unknown as SessionEntry, ...entries.slice(2)]);
    assert.deepEqual(kinds(c), kinds(fromEntries('s1', entries)));
  });

  it('continues a session, and starts a new one', () => {
    let c = reduce(emptyConversation(), { type: 'sessionLoaded', sessionId: 's1', entries });
    c = reduce(c, { type: 'continueSession' });
    assert.equal(c.readOnly, false);
    c = reduce(c, { type: 'runStarted', runId: 'r2', prompt: 'More' });
    assert.equal(c.sessionId, 's1');
    c = reduce(c, { type: 'newSession' });
    assert.equal(c.sessionId, undefined);
    assert.equal(c.items.length, 0);
  });
});

describe('panel model: the instruction files of a run', () => {
  it('shows nothing when the model was given none', () => {
    const c = run([started, { type: 'runEnded', runId: 'r1', result: runResult({ runId: 'r1' }), cancelled: false }]);
    assert.equal(item(c, 'user').instructions, undefined);
    assert.deepEqual(instructionLinks(item(c, 'user').instructions), []);
  });

  it('puts the files of agent/instructions in the run header, joined ones after the others, each once', () => {
    const c = run([
      started,
      { type: 'instructions', params: { runId: 'r1', files: ['AGENTS.md', 'web/AGENTS.md'] } },
      { type: 'instructions', params: { runId: 'r1', files: ['api/AGENTS.md', 'AGENTS.md'], joined: true } },
    ]);
    assert.deepEqual(item(c, 'user').instructions, ['AGENTS.md', 'web/AGENTS.md', 'api/AGENTS.md']);
  });

  it('takes the files of the result too (a notification that was missed)', () => {
    const c = run([
      started,
      { type: 'instructions', params: { runId: 'r1', files: ['AGENTS.md'] } },
      { type: 'runEnded', runId: 'r1', result: runResult({ runId: 'r1', instructions: ['AGENTS.md', 'src/AGENTS.md'] }), cancelled: false },
    ]);
    assert.deepEqual(item(c, 'user').instructions, ['AGENTS.md', 'src/AGENTS.md']);
  });

  it("ignores another run's files and changes nothing when nothing is new", () => {
    const before = run([started, { type: 'instructions', params: { runId: 'r1', files: ['AGENTS.md'] } }]);
    const other = reduce(before, { type: 'instructions', params: { runId: 'r2', files: ['x/AGENTS.md'] } });
    assert.equal(other, before);
    const same = reduce(before, { type: 'instructions', params: { runId: 'r1', files: ['AGENTS.md'] } });
    assert.equal(same, before);
  });

  it('shows them for a stored session from its run_start and run_finish entries', () => {
    const c = fromEntries('s1', [
      stored.runStart('r1', 'Fix it', { agent: 'build', instructions: ['AGENTS.md'] }),
      stored.runFinish('r1', 'success', 'Done.', { instructions: ['AGENTS.md', 'api/AGENTS.md'] }),
    ]);
    assert.deepEqual(item(c, 'user').instructions, ['AGENTS.md', 'api/AGENTS.md']);
  });

  it('links every workspace file of the header, but not the user’s own AGENTS.md', () => {
    assert.deepEqual(instructionLinks(['your AGENTS.md', 'AGENTS.md', 'web/AGENTS.md']), [
      { label: 'your AGENTS.md' },
      { label: 'AGENTS.md', path: 'AGENTS.md' },
      { label: 'web/AGENTS.md', path: 'web/AGENTS.md' },
    ]);
    assert.deepEqual(mergeInstructions(undefined, ['a', 'b', 'a']), ['a', 'b']);
  });
});

describe('panel model: the models that answered a run', () => {
  it('names the model of each loop in the run header, once each (mixed: the planner, then the builder)', () => {
    const c = run([
      started,
      { type: 'status', params: { runId: 'r1', state: 'preparing', model: 'openai/planner' } },
      { type: 'status', params: { runId: 'r1', state: 'model_running' } },
      { type: 'status', params: { runId: 'r1', state: 'preparing', model: 'openai/planner' } },
      { type: 'status', params: { runId: 'r1', state: 'preparing', model: 'openai/builder' } },
    ]);
    assert.deepEqual(item(c, 'user').models, ['openai/planner', 'openai/builder']);
    assert.equal(c.state, 'preparing');
  });

  it("shows a stored session's models where they changed, and its /model choices", () => {
    const c = fromEntries('s1', [
      stored.runStart('r1', 'Plan and build', { agent: 'mixed', model: 'openai/planner' }),
      stored.assistant('r1', 'The plan.', { model: 'openai/planner' }),
      stored.assistant('r1', 'Built.', { model: 'openai/builder' }),
      { ...stored.note('r2', ''), type: 'model_choice', model: 'openai/other' } as unknown as SessionEntry,
      stored.runStart('r3', 'Again', { agent: 'build', model: 'openai/other' }),
      stored.assistant('r3', 'Done.', { model: 'openai/other' }),
    ]);
    assert.deepEqual(item(c, 'user', 0).models, ['openai/planner', 'openai/builder']);
    assert.deepEqual(item(c, 'user', 1).models, ['openai/other']);
    assert.match(item(c, 'notice').message, /openai\/other/);
  });
});

describe('argsSummary', () => {
  it('is one short line', () => {
    assert.equal(argsSummary({ path: 'a.py', line: 3 }), 'path=a.py, line=3');
    assert.equal(argsSummary({ command: 'echo a\n  b' }), 'command=echo a b');
    assert.equal(argsSummary({ text: 'x'.repeat(200) }).length, 80);
    assert.equal(argsSummary(undefined), '');
  });
});

describe('renderMarkdown: the model text is untrusted', () => {
  it('escapes raw HTML', () => {
    const html = renderMarkdown('Look: <img src=x onerror=alert(1)> and <script>alert(2)</script>');
    assert.doesNotMatch(html, /<img/);
    assert.doesNotMatch(html, /<script/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it('leaves no javascript:, data: or protocol-relative link', () => {
    const html = renderMarkdown('[a](javascript:alert(1)) [b](data:text/html,x) [c](//evil.example/x) [d](vbscript:x)');
    assert.doesNotMatch(html, /href="(javascript|data|vbscript):/i);
    assert.doesNotMatch(html, /href="\/\//);
    assert.doesNotMatch(html, /<a /);
  });

  it('keeps http(s) and relative links, to be opened by the extension', () => {
    const html = renderMarkdown('[docs](https://example.com/x) and [file](src/app.py)');
    assert.match(html, /<a href="https:\/\/example\.com\/x" class="link" data-href="https:\/\/example\.com\/x"/);
    assert.match(html, /data-href="src\/app\.py"/);
  });

  it('shows images as their alt text', () => {
    const html = renderMarkdown('![a cat](https://example.com/cat.png)');
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /\[a cat\]/);
  });

  it('renders fenced code escaped, with its language', () => {
    const html = renderMarkdown('```python\nif a < b:\n    pass\n```');
    assert.match(html, /<div class="code-lang">python<\/div>/);
    assert.match(html, /if a &lt; b:/);
  });

  it('isSafeLink', () => {
    assert.equal(isSafeLink('https://x'), true);
    assert.equal(isSafeLink('mailto:a@b'), true);
    assert.equal(isSafeLink('src/a.py'), true);
    assert.equal(isSafeLink(' JavaScript:alert(1)'), false);
    assert.equal(isSafeLink('command:workbench.action.quit'), false);
    assert.equal(isSafeLink('//host/x'), false);
  });
});

describe('IncrementalMarkdown', () => {
  const text =
    'Intro with **bold**.\n\n```python\nx = 1\n\ny = 2\n```\n\n- a\n- b\n\nA [link](https://example.com) and <img src=x onerror=alert(1)>.\n\nEnd';

  it('renders growing text like a whole render once blocks are complete', () => {
    const inc = new IncrementalMarkdown();
    let stable = '';
    let tail = '';
    for (let i = 1; i <= text.length; i += 3) {
      const out = inc.update(text.slice(0, i));
      stable = out.reset ? out.appended : stable + out.appended;
      tail = out.tail;
    }
    const out = inc.update(text);
    stable += out.appended;
    tail = out.tail;
    assert.equal(stable + tail, renderMarkdown(text));
    assert.equal(inc.html, renderMarkdown(text));
  });

  it('does not cut inside a code fence', () => {
    const inc = new IncrementalMarkdown();
    const out = inc.update('```\na\n\nb\n');
    assert.equal(out.appended, '', 'the open fence is not stable yet');
    assert.match(out.tail, /a\n\nb/);
  });

  it('starts over when the text is not a continuation', () => {
    const inc = new IncrementalMarkdown();
    inc.update('one\n\ntwo');
    const out = inc.update('other\n\n');
    assert.equal(out.reset, true);
    assert.equal(out.appended + out.tail, renderMarkdown('other\n\n'));
  });

  it('stays sanitised', () => {
    const inc = new IncrementalMarkdown();
    const out = inc.update('<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))\n\n');
    assert.doesNotMatch(out.appended + out.tail, /<img|href="javascript/);
  });
});

describe('routedRun: which questions the panel answers', () => {
  const panel = { runId: 'p', routed: true, state: 'tool_running' };
  const palette = { runId: 'c', routed: false, state: 'tool_running' };

  it('routes the only run in flight when it came from the panel', () => {
    assert.equal(routedRun([panel]), 'p');
    assert.equal(routedRun([palette]), undefined);
    assert.equal(routedRun([]), undefined);
  });

  it('picks the run waiting for a human', () => {
    assert.equal(routedRun([{ ...panel, state: 'awaiting_human' }, palette]), 'p');
    assert.equal(routedRun([panel, { ...palette, state: 'awaiting_human' }]), undefined, "a palette run's approval stays a notification");
  });

  it('leaves unclear cases to VS Code', () => {
    assert.equal(routedRun([panel, palette]), undefined);
    assert.equal(routedRun([{ ...panel, state: 'awaiting_human' }, { ...palette, state: 'awaiting_human' }]), undefined);
  });

  it('uses the runId when the question has one (agent/askUser)', () => {
    assert.equal(routedRun([panel, palette], 'p'), 'p');
    assert.equal(routedRun([panel, palette], 'c'), undefined);
    assert.equal(routedRun([panel], 'gone'), undefined);
  });
});

describe('panel model: undo', () => {
  const entries: SessionEntry[] = [
    stored.runStart('r1', 'Edit a file'),
    stored.runFinish('r1', 'success', 'Edited.'),
    stored.restore('restore-1', { restores: 'r1', status: 'applied', restored: ['a.py'], conflicts: ['b.py'], unrestorable: [] }),
  ];

  it('shows a stored restore, and offers undo only for runs that changed files', () => {
    let c = fromEntries('s1', entries);
    assert.deepEqual(kinds(c), ['user', 'end', 'restore']);
    const restore = item(c, 'restore');
    assert.equal(restore.runId, 'restore-1');
    assert.equal(restore.restores, 'r1');
    assert.deepEqual(restore.conflicts, ['b.py']);
    assert.equal(canUndo(c, item(c, 'end')), false, 'no checkpoints known yet');
    const endRev = item(c, 'end').rev;
    c = reduce(c, { type: 'checkpoints', runIds: ['r1', 'restore-1'] });
    assert.equal(canUndo(c, item(c, 'end')), true);
    assert.equal(canUndo(c, item(c, 'restore')), true);
    assert.ok(item(c, 'end').rev > endRev, 'the end re-renders with its button');
  });

  it('adds a live restore once, and ignores one that changed nothing', () => {
    const result = { runId: 'r1', restoreRunId: 'restore-2', status: 'applied' as const, restored: ['a.py'], conflicts: [], unrestorable: [] };
    let c = run([{ type: 'restored', result }, { type: 'restored', result }]);
    assert.deepEqual(kinds(c), ['restore']);
    c = reduce(c, { type: 'restored', result: { ...result, restoreRunId: null, status: 'nothing' } });
    assert.deepEqual(kinds(c), ['restore']);
  });
});

describe('panel model: the review told to the agent', () => {
  it('shows the note before the prompt of the run that heard it first, after its work otherwise', () => {
    let c = reduce(emptyConversation(), { type: 'runStarted', runId: 'r2', prompt: 'go on' });
    c = reduce(c, { type: 'reviewTold', runId: 'r2', summary: 'calc.py: 1 kept, 1 undone', note: 'The user reviewed your edits in the editor:\n…' });
    assert.deepEqual(c.items.map((it) => it.kind), ['review', 'user']);
    c = reduce(c, { type: 'stream', params: { runId: 'r2', seq: 1, text: 'ok' } });
    c = reduce(c, { type: 'reviewTold', runId: 'r2', summary: 'calc.py: 1 kept', note: 'The user reviewed your edits in the editor:\n- …' });
    assert.deepEqual(c.items.map((it) => it.kind), ['review', 'user', 'text', 'review']);
    assert.notEqual(c.items[0].id, c.items[3].id);
  });

  it('shows the notes of a stored session, never the user\'s own prompt as one', () => {
    const c = fromEntries('s1', [
      stored.runStart('r2', 'go on'),
      stored.note('r2', 'The user reviewed your edits in the editor:\n- calc.py, hunk 1 (+1 −1 at line 2): kept.'),
      stored.userMessage('r2', 'go on'),
      stored.userMessage('r2', 'The user reviewed your edits in the editor:\n- calc.py, hunk 2: undone'),
    ]);
    assert.deepEqual(c.items.map((it) => it.kind), ['review', 'user', 'review']);
  });
});

describe('panel model: what undoing a run does now', () => {
  it('offers the plain undo, the rest of a partly undone run, or nothing', () => {
    assert.deepEqual(undoOffer(undefined), { label: 'Undo run' });
    assert.deepEqual(undoOffer({ restores: ['calc.py'], partlyUndone: [], changedSince: [] }), { label: 'Undo run' });
    assert.deepEqual(undoOffer({ restores: ['calc.py'], partlyUndone: ['calc.py'], changedSince: [] }), {
      label: 'Undo the rest of this run',
      detail: 'You already undid part of this run in calc.py; undoing the rest puts calc.py back as before the run.',
    });
    assert.deepEqual(undoOffer({ restores: [], partlyUndone: [], changedSince: [] }), {
      detail: 'Nothing left to undo: the files are as they were before this run.',
    });
    assert.deepEqual(undoOffer({ restores: [], partlyUndone: [], changedSince: ['notes.txt'] }), { detail: 'notes.txt changed since: left as it is.' });
  });

  it('drops the button of a run with nothing left to undo', () => {
    let c = reduce(emptyConversation(), { type: 'runStarted', runId: 'r1', prompt: 'x' });
    c = reduce(c, { type: 'runEnded', runId: 'r1', result: { status: 'success' }, cancelled: false });
    const end = c.items[c.items.length - 1];
    c = reduce(c, { type: 'checkpoints', runIds: ['r1'], previews: { r1: { restores: ['a.py'], partlyUndone: ['a.py'], changedSince: [] } } });
    assert.ok(canUndo(c, end));
    const before = c.items[c.items.length - 1].rev;
    c = reduce(c, { type: 'checkpoints', runIds: ['r1'], previews: { r1: { restores: [], partlyUndone: [], changedSince: [] } } });
    assert.ok(!canUndo(c, end));
    assert.ok(c.items[c.items.length - 1].rev > before, 'the end item is drawn again');
  });
});
