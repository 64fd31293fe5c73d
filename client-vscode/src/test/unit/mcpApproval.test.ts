import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALLOW, approvalPrompt, McpApprovals, visible } from '../../mcpApproval';
import { Methods, type McpServerApprovalParams } from '../../protocol';

function stdio(overrides: Partial<McpServerApprovalParams> = {}): McpServerApprovalParams {
  return {
    name: 'github',
    source: '.mcp.json',
    transport: 'stdio',
    command: 'npx -y @modelcontextprotocol/server-github --root ${workspaceFolder}',
    cwd: null,
    env: { GITHUB_TOKEN: '${env:GITHUB_TOKEN}' },
    envFile: null,
    url: null,
    headerNames: [],
    headers: {},
    tokenEnv: null,
    reads: [],
    files: [],
    trusted: false,
    changed: false,
    ...overrides,
  };
}

describe('approvalPrompt', () => {
  it('shows the exact command, the file and the variables as written', () => {
    const { message, detail } = approvalPrompt(stdio({ cwd: '${workspaceFolder}/tools', envFile: '.env.mcp' }));
    assert.equal(message, 'Allow the MCP server "github" to start?');
    const lines = detail.split('\n');
    assert.equal(lines[0], 'Declared in .mcp.json.');
    assert.ok(lines.includes('  npx -y @modelcontextprotocol/server-github --root ${workspaceFolder}'), detail);
    assert.ok(lines.includes('Working directory: ${workspaceFolder}/tools'), detail);
    assert.ok(lines.includes('  GITHUB_TOKEN=${env:GITHUB_TOKEN}'), detail);
    assert.ok(lines.includes('And the variables of .env.mcp'), detail);
    assert.match(detail, /runs as a program with your permissions/);
    assert.doesNotMatch(detail, /changed/);
  });

  it('says when the definition changed since the user allowed it', () => {
    const { message, detail } = approvalPrompt(stdio({ changed: true, env: {} }));
    assert.equal(message, 'The MCP server "github" changed since you allowed it. Allow the new definition to start?');
    assert.doesNotMatch(detail, /Environment variables/);
  });

  it('shows the URL and, from a server that sends no values, the names of the headers', () => {
    const { detail } = approvalPrompt(
      stdio({ transport: 'http', command: null, env: {}, url: 'https://mcp.example.com/mcp', headerNames: ['Authorization', 'X-Team'] }),
    );
    assert.ok(detail.includes('URL (http):\n  https://mcp.example.com/mcp'), detail);
    assert.ok(detail.includes('Headers sent: Authorization, X-Team'), detail);
    assert.doesNotMatch(detail, /Command/);
  });

  it('shows header values as written, the variables each value reads and the files it runs', () => {
    const { detail } = approvalPrompt(
      stdio({
        transport: 'http',
        command: null,
        env: {},
        url: 'https://mcp.example.com/mcp',
        headerNames: ['Authorization'],
        headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' },
        reads: ['header Authorization reads your $GITHUB_TOKEN'],
        files: ['srv.py (sha256 0123456789ab)'],
      }),
    );
    assert.ok(detail.includes('Headers sent, as written:\n  Authorization: Bearer ${env:GITHUB_TOKEN}'), detail);
    assert.ok(detail.includes('Your environment variables it would receive:\n  header Authorization reads your $GITHUB_TOKEN'), detail);
    assert.ok(detail.includes('Workspace files it runs or reads (a change to any asks again):\n  srv.py (sha256 0123456789ab)'), detail);
  });

  it('names the token variable of a remote server and says when its tools would not ask', () => {
    const { detail } = approvalPrompt(
      stdio({ transport: 'http', command: null, env: {}, url: 'https://m.example/mcp', tokenEnv: 'GH_TOKEN', trusted: true }),
    );
    assert.ok(detail.includes('Bearer token from your environment variable GH_TOKEN'), detail);
    assert.ok(detail.includes('Its tools would run without asking you first (trusted: true).'), detail);
    assert.doesNotMatch(approvalPrompt(stdio()).detail, /without asking/);
  });

  it('names an env file alone', () => {
    assert.ok(approvalPrompt(stdio({ env: {}, envFile: '.env' })).detail.includes('Environment: variables of .env'));
  });

  it('shows characters that could hide part of the command', () => {
    const { message, detail } = approvalPrompt(
      stdio({ name: 'ok\nAllow', command: 'tool --safe\n\n\n\nrm -rf ~ \u202efdp.exe', env: { 'A\u200b': 'x\ty' } }),
    );
    assert.equal(message, 'Allow the MCP server "ok\\nAllow" to start?');
    assert.ok(detail.includes('  tool --safe\\u000a\\u000a\\u000a\\u000arm -rf ~ \\u202efdp.exe'), detail);
    assert.ok(detail.includes('  A\\u200b=x\\u0009y'), detail);
    assert.equal(visible('plain ${env:X} ünïcode'), 'plain ${env:X} ünïcode');
  });
});

describe('McpApprovals', () => {
  function approvals(choice: string | undefined) {
    const asked: { message: string; detail: string; actions: string[] }[] = [];
    const logged: string[] = [];
    const subject = new McpApprovals(
      async (message, detail, ...actions) => {
        asked.push({ message, detail, actions });
        return choice;
      },
      (line) => logged.push(line),
    );
    return { subject, asked, logged };
  }

  it('approves only when Allow is clicked', async () => {
    const allow = approvals(ALLOW);
    assert.deepEqual(await allow.subject.answer(stdio()), { approved: true });
    assert.deepEqual(allow.asked[0].actions, ['Allow']);
    assert.equal(allow.asked[0].detail, approvalPrompt(stdio()).detail);
    assert.match(allow.logged[0], /"github" of \.mcp\.json \(npx .*\): allowed/);
    for (const choice of [undefined, 'Cancel']) {
      const other = approvals(choice);
      assert.deepEqual(await other.subject.answer(stdio()), { approved: false });
      assert.match(other.logged[0], /not allowed$/);
    }
  });

  it('does not approve a question the server withdrew', async () => {
    const { subject } = approvals(ALLOW);
    const token = { isCancellationRequested: true, onCancellationRequested: () => ({ dispose() {} }) };
    assert.deepEqual(await subject.answer(stdio(), token), { approved: false });
  });

  it('answers agent/approveMcpServer of each new client', async () => {
    const { subject } = approvals(ALLOW);
    const handlers = new Map<string, (params: McpServerApprovalParams) => Promise<unknown>>();
    let disposed = 0;
    const client = {
      onRequest: (method: string, handler: (params: McpServerApprovalParams) => Promise<unknown>) => {
        handlers.set(method, handler);
        return { dispose: () => (disposed += 1) };
      },
    };
    subject.attach(client as never);
    subject.attach(client as never);
    assert.equal(disposed, 1, 'the handler of the old client is removed');
    assert.deepEqual(await handlers.get(Methods.approveMcpServer)?.(stdio()), { approved: true });
  });
});
