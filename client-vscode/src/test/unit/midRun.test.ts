import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactionText, contextMeter, emptyConversation, formatTokens, reduce, type Action, type Conversation, type Item } from '../../panel/model';

function run(actions: Action[], start: Conversation = emptyConversation()): Conversation {
  return actions.reduce(reduce, start);
}

function messages(c: Conversation): Extract<Item, { kind: 'message' }>[] {
  return c.items.filter((it): it is Extract<Item, { kind: 'message' }> => it.kind === 'message');
}

const started: Action = { type: 'runStarted', runId: 'r1', prompt: 'Fix it', agent: 'build' };

describe('panel model: messages sent during a run', () => {
  it('shows a message as queued until agent/messageDelivered names it', () => {
    let c = run([
      started,
      { type: 'stream', params: { runId: 'r1', text: 'Working', seq: 1 } },
      { type: 'messageQueued', runId: 'r1', messageId: 'm1', text: 'use tabs', mode: 'queue' },
      { type: 'messageQueued', runId: 'r1', messageId: 'm2', text: 'and docs', mode: 'steer' },
    ]);
    assert.deepEqual(messages(c).map((m) => [m.text, m.mode, m.state]), [
      ['use tabs', 'queue', 'queued'],
      ['and docs', 'steer', 'queued'],
    ]);
    c = reduce(c, { type: 'messageDelivered', params: { runId: 'r1', messageIds: ['m1'] } });
    assert.deepEqual(messages(c).map((m) => m.state), ['delivered', 'queued']);
    // The renderer redraws an item whose rev changed.
    assert.equal(messages(c)[0].rev, 1);
  });

  it('keeps the answer being written in one block under which the message waits; the next answer comes below the message', () => {
    const c = run([
      started,
      { type: 'stream', params: { runId: 'r1', text: 'Sentence one. ', seq: 1 } },
      { type: 'messageQueued', runId: 'r1', messageId: 'm1', text: 'use tabs', mode: 'queue' },
      { type: 'stream', params: { runId: 'r1', text: 'Sentence two.', seq: 2 } },
      { type: 'messageDelivered', params: { runId: 'r1', messageIds: ['m1'] } },
      { type: 'stream', params: { runId: 'r1', text: 'Understood: tabs.', seq: 3 } },
    ]);
    assert.deepEqual(
      c.items.map((it) => [it.kind, it.kind === 'text' || it.kind === 'message' ? it.text : '']),
      [
        ['user', ''],
        ['text', 'Sentence one. Sentence two.'],
        ['message', 'use tabs'],
        ['text', 'Understood: tabs.'],
      ],
    );
  });

  it('voids the cut text when the model call restarts (steer), and the answer starts again', () => {
    let c = run([
      started,
      { type: 'stream', params: { runId: 'r1', text: 'Rewriting in Rust', seq: 1 } },
      { type: 'messageQueued', runId: 'r1', messageId: 'm1', text: 'use Go', mode: 'steer' },
      { type: 'stream', params: { runId: 'r1', text: '', seq: 2, restart: true, discard: 17 } },
    ]);
    assert.deepEqual(c.items.map((it) => it.kind), ['user', 'message']);
    c = run(
      [
        { type: 'messageDelivered', params: { runId: 'r1', messageIds: ['m1'] } },
        { type: 'stream', params: { runId: 'r1', text: 'Using Go.', seq: 3 } },
      ],
      c,
    );
    assert.deepEqual(c.items.map((it) => (it.kind === 'text' ? it.text : it.kind)), ['user', 'message', 'Using Go.']);
    const partly = run([
      started,
      { type: 'stream', params: { runId: 'r1', text: 'Kept. Cut', seq: 1 } },
      { type: 'stream', params: { runId: 'r1', text: '', seq: 2, restart: true, discard: 3 } },
    ]);
    assert.equal((partly.items[1] as Extract<Item, { kind: 'text' }>).text, 'Kept. ');
  });

  it('ignores deliveries of another run or of unknown ids', () => {
    const c = run([started, { type: 'messageQueued', runId: 'r1', messageId: 'm1', text: 'x', mode: 'queue' }]);
    assert.equal(reduce(c, { type: 'messageDelivered', params: { runId: 'r2', messageIds: ['m1'] } }), c);
    assert.equal(reduce(c, { type: 'messageDelivered', params: { runId: 'r1', messageIds: ['m9'] } }), c);
  });

  it('marks a message still queued when the run ends as undelivered', () => {
    const c = run([
      started,
      { type: 'messageQueued', runId: 'r1', messageId: 'm1', text: 'x', mode: 'queue' },
      { type: 'runEnded', runId: 'r1', cancelled: true },
    ]);
    assert.equal(messages(c)[0].state, 'undelivered');
  });
});

describe('panel model: the context meter', () => {
  it('keeps the latest agent/context of the run in flight and clears it on the next run', () => {
    let c = run([
      started,
      { type: 'context', params: { runId: 'r1', step: 1, used: 1830, limit: 128000 } },
      { type: 'context', params: { runId: 'r1', step: 2, used: 4000, limit: 128000 } },
      { type: 'context', params: { runId: 'other', step: 1, used: 9, limit: 10 } },
    ]);
    assert.deepEqual(c.context, { runId: 'r1', used: 4000, limit: 128000 });
    c = run([{ type: 'runEnded', runId: 'r1', cancelled: false }, { type: 'runStarted', runId: 'r2', prompt: 'again' }], c);
    assert.equal(c.context, undefined);
  });

  it('adds a compaction to the transcript', () => {
    const compacted = { messagesBefore: 40, messagesAfter: 12, tokensBefore: 104000, tokensAfter: 41000 };
    const c = run([started, { type: 'context', params: { runId: 'r1', step: 9, used: 41000, limit: 128000, compacted } }]);
    const item = c.items.find((it) => it.kind === 'compaction');
    assert.ok(item && item.kind === 'compaction');
    assert.equal(compactionText(item.compacted), 'Context compacted: 40 → 12 messages, 104k → 41k tokens');
  });

  it('formats tokens short', () => {
    assert.deepEqual([0, 950, 1000, 1830, 9960, 12300, 128000, 1_250_000].map(formatTokens), ['0', '950', '1k', '1.8k', '10k', '12k', '128k', '1.3M']);
  });

  it('gives the bar a percentage, a short text, a full label and a level', () => {
    assert.deepEqual(contextMeter(12300, 128000), {
      percent: 10,
      short: '12k / 128k',
      label: 'Context: 12,300 of 128,000 tokens (10 %)',
      level: 'ok',
    });
    assert.equal(contextMeter(100000, 128000).level, 'high');
    assert.equal(contextMeter(127000, 128000).level, 'full');
    assert.equal(contextMeter(200000, 128000).percent, 100);
    assert.equal(contextMeter(5, 0).percent, 100);
  });
});
