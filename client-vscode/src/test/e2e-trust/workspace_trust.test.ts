/**
 * Workspace Trust, in a VS Code of its own with trust on (scripts/vscode_e2e.sh, the "trust"
 * session): the folder opens in Restricted Mode and ships an .agentls.yaml that sends the
 * model requests to the repository's model server, a .vscode/settings.json with restricted
 * agentls settings, and (written here) an .mcp.json. The user's own agentls config points at
 * the user's model server. The suites run in order and share the window's trust.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { e2eLog } from '../e2eLog';
import { TRUST_SENT } from '../../server';
import { SETTINGS_SENT } from '../../settings';
import { RESTRICTED_NOTICE } from '../../trust';
import {
  EXTENSION_ID,
  modelRequests,
  repoModelUrl,
  runningApi,
  script,
  uiDone,
  uiStarted,
  waitFor,
  workspaceRoot,
  type RecordedRequest,
} from '../e2e/helpers';

const USER_MODEL = 'e2e';
const REPO_MODEL = 'e2e-repo';
const MCP_ECHO = 'echo from the e2e MCP server';

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

function toolNames(request: RecordedRequest): string[] {
  return (request.body.tools ?? []).map((tool) => tool.function?.name ?? '');
}

function toolResults(request: RecordedRequest): string[] {
  return (request.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
}

async function run(prompt: string): Promise<{ result?: { status: string; message?: string }; error?: string }> {
  const outcome = await vscode.commands.executeCommand<{ result?: { status: string; message?: string }; error?: string }>('agentls.run', {
    prompt,
    useSelection: false,
  });
  return outcome ?? {};
}

describe('Workspace Trust', () => {
  let api: AgentlsApi;
  let python: string;
  let fixture: string;
  /** The command line of the MCP server, as the modal should show it. */
  let mcpCommand: string;

  before(async () => {
    api = await runningApi();
    const interpreter = api.settings().python || (await api.managed.readyPython());
    assert.ok(interpreter, 'a Python runs the server');
    python = interpreter;
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    // The project's own test MCP server, run by the same Python as the agentls server.
    fixture = path.resolve(extension.extensionPath, '..', 'tests', 'fixtures', 'mcp_server.py');
    assert.ok(fs.existsSync(fixture), fixture);
    mcpCommand = `${python} ${fixture} --stdio`;
    writeMcpJson([python, fixture, '--stdio']);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
  });

  // Under the driver the extension's own log reaches the runner only this way.
  afterEach(function () {
    if (this.currentTest?.state === 'failed') {
      e2eLog(`the extension's log, last lines:\n${api.logText().slice(-6000)}`);
    }
  });

  function writeMcpJson(command: string[]): void {
    const [program, ...args] = command;
    const config = { mcpServers: { e2e: { command: program, args, env: { GITHUB_TOKEN: '${E2E_GITHUB_TOKEN}' } } } };
    fs.writeFileSync(path.join(workspaceRoot(), '.mcp.json'), JSON.stringify(config, null, 2));
  }

  it('opens in Restricted Mode: restricted settings come from the user, and the panel says so', async () => {
    assert.strictEqual(vscode.workspace.isTrusted, false, 'the folder opens untrusted');
    const settings = api.settings();
    assert.strictEqual(settings.model, 'openai/e2e', "the workspace's agentls.model is not read");
    assert.strictEqual(settings.maxSteps, 10, "the workspace's agentls.maxSteps is not read");
    assert.ok(api.logText().includes(RESTRICTED_NOTICE), 'the log says the folder is restricted');
    await uiDone({ panel: [{ expectText: '.trust-bar', text: 'Restricted Mode' }, { expectText: '.trust-bar .manage-trust', text: 'Manage Workspace Trust' }] });
  });

  it("an untrusted folder's .agentls.yaml and .mcp.json are not obeyed: the user's model server answers", async () => {
    await script([{ text: 'The **user**\'s model answers here.' }], USER_MODEL);
    await script([{ text: 'the repository must not be asked' }], REPO_MODEL, repoModelUrl());
    await api.panel.run('Which model server answers in Restricted Mode?');
    const end = api.panel.current.items.filter((it) => it.kind === 'end').at(-1);
    assert.ok(end && 'status' in end && end.status === 'success', JSON.stringify(end));

    const user = await modelRequests();
    const repo = await modelRequests(repoModelUrl());
    assert.ok(user.length > 0, "the user's model server was asked");
    assert.strictEqual(user[0].body.model, USER_MODEL);
    assert.deepStrictEqual(repo, [], "the repository's model server got nothing");
    assert.ok(!toolNames(user[0]).some((name) => name.startsWith('mcp_')), `no MCP tools: ${toolNames(user[0]).join(', ')}`);
    assert.ok(!api.logText().includes('MCP server "e2e"'), 'the MCP server was not even asked about');
    // The run's status bar item says it too (its final status shows for a few seconds).
    assert.ok(api.statusTooltip().includes(RESTRICTED_NOTICE), api.statusTooltip());
    await uiDone({ hover: '[id="agentls.agentls.status"]', screenshot: 'trust-restricted-tooltip' });
    // The run itself says what it ignored, in the conversation (agent/notice).
    const notice = api.panel.current.items.find((it) => it.kind === 'notice');
    assert.ok(notice && notice.kind === 'notice' && notice.level === 'warning', JSON.stringify(api.panel.current.items.map((it) => it.kind)));
    for (const named of ['is not a trusted folder', 'llm.api_base', '.mcp.json', 'Workspace Trust']) {
      assert.ok(notice.message.includes(named), `the notice names ${named}: ${notice.message}`);
    }
    await uiDone({
      panel: [
        { expectText: '.trust-bar', text: 'Restricted Mode' },
        { expectText: '.notice.warning', text: 'is not a trusted folder' },
        { screenshot: 'trust-restricted' },
      ],
    });
  });

  it('granting trust in the UI applies the workspace config without a restart', async () => {
    // The MCP server is the next test's: this run must not ask about it.
    fs.rmSync(path.join(workspaceRoot(), '.mcp.json'));
    const client = api.server.current;
    const sent = count(api.logText(), SETTINGS_SENT);
    await uiDone({ palette: 'Workspaces: Manage Workspace Trust' });
    await uiDone({ click: '.workspace-trust-buttons .monaco-button:has-text("Trust")', screenshot: 'trust-editor' });
    await waitFor(() => vscode.workspace.isTrusted, 'the folder to be trusted', 20_000);
    await waitFor(() => api.logText().includes(TRUST_SENT), 'agent/workspaceTrust to be sent', 20_000);
    // The restricted settings of .vscode/settings.json apply now and reach the server.
    await waitFor(() => api.settings().model === 'openai/e2e-repo', "the workspace's agentls.model", 20_000);
    await waitFor(() => count(api.logText(), SETTINGS_SENT) > sent, 'the changed settings to be sent', 20_000);
    assert.strictEqual(api.settings().maxSteps, 7, "the workspace's agentls.maxSteps");
    assert.strictEqual(api.server.current, client, 'the same server, not restarted');
    await uiDone({ click: '.modal-editor-action-container a[aria-label^="Close Modal Editor"]' });

    await script([{ text: 'the user\'s server must not be asked now' }], USER_MODEL);
    await script([{ text: 'The **repository**\'s model answers, now that the folder is trusted.' }], REPO_MODEL, repoModelUrl());
    await api.panel.run('Which model server answers once trusted?');
    const end = api.panel.current.items.filter((it) => it.kind === 'end').at(-1);
    assert.ok(end && 'status' in end && end.status === 'success', JSON.stringify(end));
    const repo = await modelRequests(repoModelUrl());
    assert.ok(repo.length > 0, "the repository's model server was asked");
    assert.strictEqual(repo[0].body.model, REPO_MODEL);
    assert.deepStrictEqual(await modelRequests(), [], "the user's model server got nothing");
    assert.ok(!api.statusTooltip().includes(RESTRICTED_NOTICE), api.statusTooltip());
    await uiDone({ panel: [{ expectCount: '.trust-bar:not([hidden])', count: 0 }, { screenshot: 'trust-granted' }] });
  });

  it('a workspace MCP server asks first, in a modal that shows the exact command; Allow gives the run its tools', async () => {
    writeMcpJson([python, fixture, '--stdio']);
    await script(
      [{ tool_calls: [{ name: 'mcp_e2e_echo', arguments: { text: MCP_ECHO } }] }, { text: 'The MCP server answered.' }],
      REPO_MODEL,
      repoModelUrl(),
    );
    const modal = uiStarted({
      dialog: 'Allow',
      expectText: ['"e2e"', '.mcp.json', mcpCommand, 'GITHUB_TOKEN=', 'E2E_GITHUB_TOKEN'],
      screenshot: 'trust-mcp-modal',
    });
    const outcome = await run('Use the MCP server');
    const text = await modal.done();
    assert.ok(text.includes(mcpCommand), `the modal shows the command: ${text}`);
    assert.match(text, /GITHUB_TOKEN=\$\{(env:)?E2E_GITHUB_TOKEN\}/, `the modal shows the variable as written: ${text}`);
    assert.strictEqual(outcome.result?.status, 'success', JSON.stringify(outcome));
    const repo = await modelRequests(repoModelUrl());
    assert.ok(toolNames(repo[0]).includes('mcp_e2e_echo'), toolNames(repo[0]).join(', '));
    assert.ok(toolResults(repo[1]).some((result) => result.includes(MCP_ECHO)), `the tool result reached the model: ${toolResults(repo[1]).join(' | ')}`);
    assert.match(api.logText(), /MCP server "e2e" of \.mcp\.json \(.*\): allowed/);
  });

  it('a changed definition asks again and says so; Cancel leaves the server out', async () => {
    writeMcpJson([python, fixture, '--stdio', '--extra-tools', '1']);
    await script([{ text: 'Without the MCP server.' }], REPO_MODEL, repoModelUrl());
    const modal = uiStarted({
      dialog: 'Cancel',
      expectText: ['changed since you approved it', `${mcpCommand} --extra-tools 1`],
      screenshot: 'trust-mcp-changed',
    });
    const outcome = await run('Use the MCP server again');
    const text = await modal.done();
    assert.ok(text.includes('changed since you approved it'), text);
    assert.strictEqual(outcome.result?.status, 'success', JSON.stringify(outcome));
    const repo = await modelRequests(repoModelUrl());
    assert.ok(!toolNames(repo[0]).some((name) => name.startsWith('mcp_e2e')), toolNames(repo[0]).join(', '));
    assert.match(api.logText(), /MCP server "e2e" of \.mcp\.json \(.*--extra-tools 1\): not allowed/);
  });

  it("a workspace's hooks ask first in the same modal, with each command and its script; Allow lets them run", async () => {
    // (The MCP server refused above is not asked about again while the server runs.)
    const hooks = path.join(workspaceRoot(), '.agentls');
    fs.mkdirSync(hooks, { recursive: true });
    fs.writeFileSync(path.join(hooks, 'hook.sh'), 'echo HOOK-SAYS-HELLO\n');
    const command = 'bash "$CLAUDE_PROJECT_DIR"/.agentls/hook.sh';
    const table = { UserPromptSubmit: [{ hooks: [{ type: 'command', command }] }] };
    fs.writeFileSync(path.join(hooks, 'hooks.json'), JSON.stringify({ hooks: table }));
    await script([{ text: 'The hook spoke.' }], REPO_MODEL, repoModelUrl());
    const modal = uiStarted({
      dialog: 'Allow',
      expectText: ['Allow the hooks of .agentls/hooks.json to run?', `UserPromptSubmit: ${command}`, '.agentls/hook.sh (sha256 '],
      screenshot: 'trust-hooks-modal',
    });
    const outcome = await run('Say what the hook said');
    const text = await modal.done();
    assert.ok(text.includes('runs or reads workspace file .agentls/hook.sh (sha256 '), `the modal shows the script: ${text}`);
    assert.strictEqual(outcome.result?.status, 'success', JSON.stringify(outcome));
    const repo = await modelRequests(repoModelUrl());
    const said = JSON.stringify((repo[0].body.messages ?? []).filter((m) => m.role === 'user'));
    assert.ok(said.includes('HOOK-SAYS-HELLO'), `the hook's words reached the model: ${said}`);
    assert.match(api.logText(), /Hooks of \.agentls\/hooks\.json \(UserPromptSubmit: .*hook\.sh\): allowed/);
  });
});
