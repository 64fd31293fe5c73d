import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import type { Conversation, Item } from '../../panel/model';
import { modelRequests, script, setUpSuite, uiDone, waitFor } from './helpers';

type Tool = Extract<Item, { kind: 'tool' }>;

/** The built-in read-only agent the parent hands its search to. */
const CHILD = 'plan';

function delegateCard(c: Conversation): Tool | undefined {
  return c.items.find((it): it is Tool => it.kind === 'tool' && it.tool === 'delegate');
}

describe('a subagent in the agent panel', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
  });

  afterEach(async () => {
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  /** What the panel shows, for failure messages. */
  function shown(): string {
    return JSON.stringify(api.panel.current.items.map((it) => [it.kind, 'state' in it ? it.state : 'answer' in it ? it.answer : '', it.kind === 'tool' ? it.subagent : ''])).slice(-2000);
  }

  async function within<T>(probe: () => T | undefined | false, what: string): Promise<T> {
    try {
      return await waitFor(probe, what, 90_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the panel shows ${shown()}`);
    }
  }

  /** The scripted turns of a delegating run: the parent's delegate call, the child's grep
   * and read_file in a conversation of its own and its report, the parent's answer. */
  function delegatingRun(): Promise<void> {
    return script([
      { tool_calls: [{ id: 'call_d', name: 'delegate', arguments: { agent: CHILD, task: 'Find where greet is defined and what it returns' } }] },
      { tool_calls: [{ id: 'call_g', name: 'grep', arguments: { pattern: 'def greet' } }] },
      { tool_calls: [{ id: 'call_r', name: 'read_file', arguments: { path: 'greet.py' } }] },
      { text: 'greet is defined in greet.py: it returns a greeting for the name it is given.' },
      { text: 'greet (greet.py) returns a greeting for the name it is given.' },
    ]);
  }

  async function send(prompt: string, confirm: string): Promise<void> {
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await waitFor(() => api.panel.current.items.length === 0, 'an empty conversation', 20_000);
    await uiDone({ panel: [{ select: '#confirm', value: confirm }, { fill: '#prompt', text: prompt }, { press: '#prompt', key: 'Enter' }] });
  }

  it('shows the child nested under the delegate card, in the dark and light themes', async () => {
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
    await delegatingRun();
    await send('Where is greet defined?', 'yolo');
    const end = await within(() => api.panel.current.items.find((it): it is Extract<Item, { kind: 'end' }> => it.kind === 'end'), 'the run to end');
    assert.strictEqual(end.status, 'success', shown());
    const card = delegateCard(api.panel.current);
    assert.ok(card?.subagent, `the delegate card holds its subagent: ${shown()}`);
    assert.strictEqual(card.subagent.agent, CHILD);
    assert.strictEqual(card.subagent.status, 'success');
    assert.deepStrictEqual(
      card.subagent.steps.map((s) => [s.tool, s.state]),
      [
        ['grep', 'done'],
        ['read_file', 'done'],
      ],
    );
    assert.ok((card.subagent.tokens ?? 0) > 0, 'its tokens are shown');
    // The child's calls are not cards of the run's own.
    assert.deepStrictEqual(
      api.panel.current.items.filter((it) => it.kind === 'tool').map((it) => (it.kind === 'tool' ? it.tool : '')),
      ['delegate'],
    );
    // The parent's last request holds the report as its one tool result, not the child's.
    const last = (await modelRequests()).at(-1)?.body.messages ?? [];
    const results = last.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
    assert.strictEqual(results.length, 1, JSON.stringify(results));
    assert.match(results[0], /returns a greeting for the name/);

    await uiDone({
      panel: [
        { expectText: '.tool[data-tool="delegate"] summary', text: 'done' },
        { expectText: `.subagent[data-agent="${CHILD}"] .subagent-name`, text: CHILD },
        { expectText: `.subagent[data-agent="${CHILD}"] .subagent-task`, text: 'Find where greet is defined' },
        { expectCount: `.subagent[data-agent="${CHILD}"] .subagent-step[data-state="done"]`, count: 2 },
        { expectText: `.subagent[data-agent="${CHILD}"] .subagent-state`, text: 'tokens' },
        { expectText: `.subagent[data-agent="${CHILD}"] .subagent-report`, text: 'greet is defined in greet.py' },
        { expectInView: `.subagent[data-agent="${CHILD}"]` },
        { screenshot: 'subagent-dark' },
        // Folded and unfolded like a tool card.
        { click: `.subagent[data-agent="${CHILD}"] > summary` },
        { expectCount: `.subagent[data-agent="${CHILD}"][open]`, count: 0 },
        { click: `.subagent[data-agent="${CHILD}"] > summary` },
        { expectCount: `.subagent[data-agent="${CHILD}"][open]`, count: 1 },
      ],
    });
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Light Modern', vscode.ConfigurationTarget.Global);
    await uiDone({ panel: [{ expectText: '.subagent .subagent-name', text: CHILD }, { screenshot: 'subagent-light' }] });
  });

  it("names the subagent on its approvals, and its call on the run's step while it waits", async () => {
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
    await delegatingRun();
    // Every call is asked about: the run waits on each approval, a state the checks and the
    // screenshot can show without racing the run.
    await send('Where is greet defined? Ask before each call.', 'confirm-all');
    let named = 0;
    for (;;) {
      const pending = await within(
        () => api.panel.current.items.find((it) => it.kind === 'approval' && it.answer === undefined) ?? (api.panel.current.items.some((it) => it.kind === 'end') && 'ended'),
        'an approval or the end of the run',
      );
      if (pending === 'ended') {
        break;
      }
      const approval = pending as Extract<Item, { kind: 'approval' }>;
      const steps: Record<string, unknown>[] = [];
      if (approval.message.includes(`(subagent ${CHILD})`)) {
        named += 1;
        steps.push({ expectText: '.card.approval:not(.answered) .card-title', text: `Approval needed · subagent ${CHILD}` });
        if (named === 2) {
          // Its grep is done and its read_file waits for the user: the card shows both, the
          // panel's status line the child's call on the run's step.
          steps.push(
            { expectText: `.subagent[data-agent="${CHILD}"] .subagent-step[data-tool="grep"][data-state="done"]`, text: 'grep' },
            { expectText: `.subagent[data-agent="${CHILD}"] .subagent-step[data-tool="read_file"][data-state="running"]`, text: 'read_file' },
            { expectText: '.status-line .status-text', text: `${CHILD}: read_file` },
            { screenshot: 'subagent-approval-dark' },
          );
        }
      }
      steps.push({ click: '.card.approval:not(.answered) button[data-choice="Allow once"]' });
      await uiDone({ panel: steps });
      await within(() => api.panel.current.items.find((it) => it.id === approval.id && it.kind === 'approval' && it.answer !== undefined), 'the approval to be answered');
    }
    assert.strictEqual(named, 2, `the child's two calls were asked about with its name: ${shown()}`);
    const end = api.panel.current.items.find((it): it is Extract<Item, { kind: 'end' }> => it.kind === 'end');
    assert.strictEqual(end?.status, 'success', shown());
    assert.strictEqual(delegateCard(api.panel.current)?.subagent?.status, 'success', shown());
  });
});
