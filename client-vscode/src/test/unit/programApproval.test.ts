import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALLOW, approvalPrompt, ProgramApprovals, visible } from '../../programApproval';
import { Methods, type ProgramApprovalParams } from '../../protocol';

function server(overrides: Partial<ProgramApprovalParams> = {}): ProgramApprovalParams {
  return {
    kind: 'mcp_server',
    name: 'github',
    source: '.mcp.json',
    headline: 'Allow the MCP server "github" to start?',
    lines: [
      'command: npx -y @modelcontextprotocol/server-github --root ${workspaceFolder}',
      'env GITHUB_TOKEN=${env:GITHUB_TOKEN}  (reads your $GITHUB_TOKEN)',
      'runs or reads workspace file srv.py (sha256 0123456789ab)',
    ],
    files: ['srv.py (sha256 0123456789ab)'],
    warning: 'It runs as a program with your permissions. Allow it only if you trust this repository.',
    changed: false,
    ...overrides,
  };
}

function hooks(overrides: Partial<ProgramApprovalParams> = {}): ProgramApprovalParams {
  return {
    kind: 'hooks',
    name: '.claude/settings.json',
    source: '.claude/settings.json',
    headline: 'Allow the hooks of .claude/settings.json to run?',
    lines: ['PreToolUse [execute_command]: ./scripts/guard.sh', '  runs or reads workspace file scripts/guard.sh (sha256 0123456789ab)', 'PostToolUse: ruff format .'],
    files: ['scripts/guard.sh (sha256 0123456789ab)'],
    warning: 'Each runs as a program with your permissions, and a hook can block or change what the agent does.',
    changed: false,
    ...overrides,
  };
}

function approvals(choice: string | undefined) {
  const asked: { message: string; detail: string; actions: string[] }[] = [];
  const logged: string[] = [];
  const subject = new ProgramApprovals(
    async (message, detail, ...actions) => {
      asked.push({ message, detail, actions });
      return choice;
    },
    (line) => logged.push(line),
  );
  return { subject, asked, logged };
}

describe('approvalPrompt', () => {
  it("shows the server's question, where it is declared and each line as the server wrote it", () => {
    const { message, detail } = approvalPrompt(server());
    assert.equal(message, 'Allow the MCP server "github" to start?');
    const lines = detail.split('\n');
    assert.equal(lines[0], 'Declared in .mcp.json:');
    assert.ok(lines.includes('  command: npx -y @modelcontextprotocol/server-github --root ${workspaceFolder}'), detail);
    assert.ok(lines.includes('  env GITHUB_TOKEN=${env:GITHUB_TOKEN}  (reads your $GITHUB_TOKEN)'), detail);
    assert.ok(lines.includes('  runs or reads workspace file srv.py (sha256 0123456789ab)'), detail);
    assert.equal(lines.at(-1), 'It runs as a program with your permissions. Allow it only if you trust this repository.');
  });

  it("lays a file's hooks out the same way: each command, the files it runs under it", () => {
    const { message, detail } = approvalPrompt(hooks({ changed: true, headline: 'The hooks of .claude/settings.json changed since you approved them. Allow the new hooks to run?' }));
    assert.match(message, /changed since you approved them/);
    const lines = detail.split('\n');
    assert.equal(lines[0], 'Declared in .claude/settings.json:');
    assert.deepEqual(lines.slice(2, 5), [
      '  PreToolUse [execute_command]: ./scripts/guard.sh',
      '    runs or reads workspace file scripts/guard.sh (sha256 0123456789ab)',
      '  PostToolUse: ruff format .',
    ]);
  });

  it('shows every character that could hide part of the text, even if the server did not', () => {
    const { message, detail } = approvalPrompt(server({ headline: 'Allow "a\u202eb"?', lines: ['command: echo ok\n\n\nrm -rf ~'], source: '.mcp\u200b.json' }));
    assert.equal(message, 'Allow "a\\u202eb"?');
    assert.ok(detail.includes('  command: echo ok\\u000a\\u000a\\u000arm -rf ~'), detail);
    assert.ok(detail.includes('Declared in .mcp\\u200b.json:'), detail);
    assert.equal(visible('plain'), 'plain');
  });
});

describe('ProgramApprovals', () => {
  it('approves only when Allow is clicked, and logs the answer by kind', async () => {
    const allow = approvals(ALLOW);
    assert.deepEqual(await allow.subject.answer(server()), { approved: true });
    assert.deepEqual(allow.asked[0].actions, ['Allow']);
    assert.equal(allow.asked[0].detail, approvalPrompt(server()).detail);
    assert.match(allow.logged[0], /^MCP server "github" of \.mcp\.json \(command: npx .*\): allowed$/);
    assert.deepEqual(await allow.subject.answer(hooks()), { approved: true });
    assert.match(allow.logged[1], /^Hooks of \.claude\/settings\.json \(PreToolUse .*guard\.sh\): allowed$/);
    for (const choice of [undefined, 'Cancel']) {
      const other = approvals(choice);
      assert.deepEqual(await other.subject.answer(hooks()), { approved: false });
      assert.match(other.logged[0], /not allowed$/);
    }
  });

  it('does not approve a question the server withdrew', async () => {
    const { subject } = approvals(ALLOW);
    const token = { isCancellationRequested: true, onCancellationRequested: () => ({ dispose() {} }) };
    assert.deepEqual(await subject.answer(server(), token), { approved: false });
  });

  it('answers agent/approveProgram of each new client', async () => {
    const { subject } = approvals(ALLOW);
    const handlers = new Map<string, (params: ProgramApprovalParams) => Promise<unknown>>();
    let disposed = 0;
    const client = {
      onRequest: (method: string, handler: (params: ProgramApprovalParams) => Promise<unknown>) => {
        handlers.set(method, handler);
        return { dispose: () => (disposed += 1) };
      },
    };
    subject.attach(client as never);
    subject.attach(client as never);
    assert.equal(disposed, 1, 'the handler of the old client is removed');
    assert.deepEqual(await handlers.get(Methods.approveProgram)?.(hooks()), { approved: true });
  });
});
