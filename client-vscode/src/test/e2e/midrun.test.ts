import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { Conversation, Item } from '../../panel/model';
import { modelRequests, script, setUpSuite, uiDone, waitFor } from './helpers';

function midRun(c: Conversation): Extract<Item, { kind: 'message' }>[] {
  return c.items.filter((it): it is Extract<Item, { kind: 'message' }> => it.kind === 'message');
}

describe('the agent panel during a run', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
    await waitFor(() => api.panel.current.items.length === 0, 'an empty conversation', 20_000);
  });

  afterEach(async () => {
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
  });

  it('sends a message typed during a run to the run, shows it delivered, and shows the context meter', async () => {
    // Varied text: the server cuts a stream that repeats one chunk over and over. Slow enough
    // (~7 s) to type and send while it streams.
    const long = Array.from({ length: 80 }, (_, i) => `Sentence ${i} of a long answer.`).join(' ');
    await script([
      { text: long, chunk_size: 10, chunk_delay: 0.03 },
      { text: 'Understood: tabs, not spaces.' },
    ]);
    await uiDone({ panel: [{ fill: '#prompt', text: 'Write a lot' }, { press: '#prompt', key: 'Enter' }] });
    await waitFor(() => api.panel.current.items.some((it) => it.kind === 'text' && it.text.length > 20), 'streamed text', 60_000);
    await uiDone({
      panel: [
        { expectText: '#context-meter', text: '/' },
        { screenshot: 'context-meter' },
        { fill: '#prompt', text: 'use tabs, not spaces' },
        { press: '#prompt', key: 'Enter' },
        { expectText: '.msg.mid-run', text: 'use tabs, not spaces' },
        { screenshot: 'message-queued' },
      ],
    });
    const delivered = await waitFor(() => midRun(api.panel.current).find((m) => m.state === 'delivered'), 'the message delivered', 60_000);
    assert.strictEqual(delivered.text, 'use tabs, not spaces');
    await uiDone({ panel: [{ expectText: '.msg.mid-run.delivered .message-state', text: 'delivered' }, { screenshot: 'send-during-run' }] });
    await waitFor(() => api.panel.current.items.some((it) => it.kind === 'end'), 'the run to end', 60_000);
    // The first answer in one block, the message under it, the answer to it below.
    const shown = api.panel.current.items.filter((it) => it.runId === delivered.runId && it.kind !== 'end');
    assert.deepStrictEqual(
      shown.map((it) => it.kind),
      ['user', 'text', 'message', 'text'],
    );
    const last = shown.at(-1);
    assert.strictEqual(last?.kind === 'text' ? last.text : undefined, 'Understood: tabs, not spaces.');
    const requests = await modelRequests();
    assert.ok(requests.length >= 2, `${requests.length} model requests`);
    assert.match(JSON.stringify(requests.at(-1)?.body.messages ?? []), /use tabs, not spaces/);
    const meter = api.panel.current.context;
    assert.ok(meter && meter.used > 0 && meter.limit > 0, JSON.stringify(meter));
  });
});
