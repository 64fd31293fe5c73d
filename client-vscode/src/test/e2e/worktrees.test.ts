import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { worktreeCards, type WorktreeCard } from '../../panel/worktrees';
import { modelRequests, onDisk, script, setUpSuite, uiDone, waitFor, workspaceRoot, writeFile } from './helpers';

/** git in the workspace, with an identity of its own (the test's HOME has none). */
function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', ...args], { cwd: workspaceRoot(), encoding: 'utf8' });
}

/** Any lens of `file` (the inline review's Keep/Undo). */
function lensOf(file: string): string {
  const match = `[title$=" in ${file}"]`;
  return `.codelens-decoration a${match}, .codelens-decoration button${match}`;
}

const ONE = 'wt_one.py';
const TWO = 'wt_two.py';

describe('worktree sessions in the panel', () => {
  let api: AgentlsApi;
  /** The workspace was no repository before this suite: it takes its .git away at the end. */
  let madeRepository = false;

  before(async function () {
    api = await setUpSuite(this);
    // Worktrees need a repository with a commit: the e2e workspace is a plain folder.
    madeRepository = !fs.existsSync(path.join(workspaceRoot(), '.git'));
    writeFile(ONE, 'ONE = 1\n');
    writeFile(TWO, 'TWO = 2\n');
    if (madeRepository) {
      git('init', '-q');
      writeFile('.gitignore', '.e2e-ack-*\n.agentls/\n');
    }
    git('add', '-A');
    git('commit', '-qm', 'the e2e workspace');
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }] });
  });

  after(async () => {
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'runs to end', 30_000).catch(() => undefined);
    await api.review.decideAll('keep');
    if (api.panel.options.worktree) {
      await uiDone({ panel: [{ click: '#worktree' }] });
    }
    if (madeRepository) {
      fs.rmSync(path.join(workspaceRoot(), '.git'), { recursive: true, force: true });
      fs.rmSync(path.join(workspaceRoot(), '.gitignore'), { force: true });
    }
  });

  function cards(): WorktreeCard[] {
    return worktreeCards(api.panel.worktrees);
  }

  /** The card of the session started with ``prompt`` (the panel may add its "(with …)" line
   * when an editor with a selection is open, as an earlier suite leaves one). */
  function card(prompt: string): WorktreeCard | undefined {
    return cards().find((c) => c.prompt?.split('\n\n(with ')[0] === prompt);
  }

  async function within<T>(probe: () => T | undefined | false, what: string, ms = 90_000): Promise<T> {
    try {
      return await waitFor(probe, what, ms);
    } catch (error) {
      const seen = (await modelRequests().catch(() => [])).map((r) => JSON.stringify(r.body.messages?.at(-1)).slice(0, 200));
      throw new Error(`${(error as Error).message}; the cards: ${JSON.stringify(cards())}; model requests: ${seen.join(' || ')}`);
    }
  }

  it('runs two sessions side by side, applies one for review and discards the other', async function () {
    this.timeout(400_000);
    // Prompts of three lines in a card, as real tasks are: the cards take the list's height.
    const first = 'Make ONE eleven, and leave the other lines of the module as they are';
    const second = 'Make TWO twenty-two, and leave the other lines of the module as they are';
    // One model queue for both runs: each first call is slow, so both work at once.
    await script([
      { delay: 8, tool_calls: [{ name: 'edit_file', arguments: { path: ONE, old_str: 'ONE = 1', new_str: 'ONE = 11' } }] },
      { delay: 5, tool_calls: [{ name: 'edit_file', arguments: { path: TWO, old_str: 'TWO = 2', new_str: 'TWO = 22' } }] },
      { text: 'Done.' },
      { text: 'Done.' },
    ]);
    await uiDone({ panel: [{ click: '#worktree' }, { fill: '#prompt', text: first }, { press: '#prompt', key: 'Enter' }] });
    await within(async () => (await modelRequests()).length >= 1, 'the first run to ask the model');
    // The prompt box is free while the first session works: a second one starts beside it.
    await uiDone({ panel: [{ fill: '#prompt', text: second }, { press: '#prompt', key: 'Enter' }] });
    await within(() => card(first)?.kind === 'running' && card(second)?.kind === 'running', 'both sessions to run');
    await uiDone({
      panel: [
        { expectCount: '.worktree-card[data-state="running"]', count: 2 },
        { expectText: '.worktree-card', text: first },
        { expectText: '.worktree-card', text: second },
        { screenshot: 'worktrees-running' },
      ],
    });
    assert.strictEqual(api.panel.current.runId, undefined, 'the conversation of the user tree has no run in flight');

    const one = await within(() => {
      const c = card(first);
      return c?.kind === 'ready' && c.stats?.files === 1 && c;
    }, 'the first session to be ready');
    const two = await within(() => {
      const c = card(second);
      return c?.kind === 'ready' && c.stats?.files === 1 && c;
    }, 'the second session to be ready');
    assert.strictEqual(one.runStatus, 'success', JSON.stringify(one));
    assert.deepStrictEqual(one.stats, { files: 1, added: 1, removed: 1 });
    // Nothing of either run reached the user's tree.
    assert.strictEqual(onDisk(ONE), 'ONE = 1\n');
    assert.strictEqual(onDisk(TWO), 'TWO = 2\n');
    assert.match(git('branch', '--list', `agentls/${one.name}`), /agentls\//);
    await uiDone({
      panel: [
        { expectCount: '.worktree-card[data-state="ready"] .apply-worktree', count: 2 },
        { expectText: `.worktree-card[data-worktree="${one.name}"] .worktree-stats`, text: '+1 −1 in 1 file' },
        { screenshot: 'worktrees-ready' },
      ],
    });

    // Apply the first: one agent edit, under inline review in the editor.
    await uiDone({ panel: [{ click: `.worktree-card[data-worktree="${one.name}"] .apply-worktree` }] });
    await within(() => api.panel.worktrees.outcomes[one.name]?.status === 'applied', 'the apply to be done');
    assert.strictEqual(api.panel.worktrees.outcomes[one.name].pending, true, 'the change waits in the inline review');
    await within(() => api.review.pendingCount === 1, 'the change under review');
    const editor = await within(() => vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(ONE) && vscode.window.activeTextEditor, 'the applied file in the editor');
    assert.strictEqual(editor.document.getText(), 'ONE = 11\n');
    await uiDone({ expectVisible: lensOf(ONE), what: 'the review lenses of the applied change' });
    await uiDone({
      panel: [
        { expectText: `.worktree-card[data-worktree="${one.name}"] .worktree-outcome`, text: 'Applied: wt_one.py' },
        { expectCount: `.worktree-card[data-worktree="${one.name}"] .apply-worktree`, count: 0 },
      ],
    });
    await uiDone({ screenshot: 'worktrees-applied' });
    await api.review.decideAll('keep');
    await within(() => api.review.pendingCount === 0 && onDisk(ONE) === 'ONE = 11\n', 'the kept change saved');

    // The user changed the second's line meanwhile: applying it is a conflict, nothing written.
    writeFile(TWO, 'TWO = 3\n');
    await uiDone({ panel: [{ click: `.worktree-card[data-worktree="${two.name}"] .apply-worktree` }] });
    await within(() => api.panel.worktrees.outcomes[two.name]?.status === 'conflict', 'the conflict');
    assert.deepStrictEqual(
      api.panel.worktrees.outcomes[two.name].conflicts.map((c) => c.path),
      [TWO],
    );
    assert.strictEqual(onDisk(TWO), 'TWO = 3\n', 'nothing was written');
    await uiDone({
      panel: [
        { expectText: `.worktree-card[data-worktree="${two.name}"] .worktree-conflicts`, text: TWO },
        // What the user can do about it is in sight without scrolling the list.
        { expectInView: `.worktree-card[data-worktree="${two.name}"] .discard-worktree` },
        { expectInView: `.worktree-card[data-worktree="${two.name}"] .apply-worktree` },
        { screenshot: 'worktrees-conflict' },
      ],
    });

    // Discard the second, once confirmed.
    const asked: string[] = [];
    const real = api.ui.showModalWarning;
    api.ui.showModalWarning = async (message, detail, ...actions) => {
      asked.push(`${message} ${detail}`);
      return actions.includes('Discard') ? 'Discard' : undefined;
    };
    try {
      await uiDone({ panel: [{ click: `.worktree-card[data-worktree="${two.name}"] .discard-worktree` }] });
      await within(() => api.panel.worktrees.outcomes[two.name]?.status === 'discarded', 'the discard');
    } finally {
      api.ui.showModalWarning = real;
    }
    assert.match(asked.join('\n'), new RegExp(`Discard the worktree ${two.name}\\?`));
    await within(() => !api.panel.worktrees.listed.some((w) => w.name === two.name), 'the list without the discarded worktree');
    assert.strictEqual(git('branch', '--list', `agentls/${two.name}`).trim(), '', 'its branch is gone');
    assert.strictEqual(onDisk(TWO), 'TWO = 3\n');
    await uiDone({
      panel: [
        { expectText: `.worktree-card[data-worktree="${two.name}"]`, text: 'Discarded' },
        { expectCount: `.worktree-card[data-worktree="${one.name}"]`, count: 1 },
        { screenshot: 'worktrees-discarded' },
      ],
    });
  });
});
