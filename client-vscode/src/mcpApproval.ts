/**
 * `agent/approveMcpServer`: the server asks before it starts an MCP server that the
 * workspace declares (`.mcp.json`, `.vscode/mcp.json`, `.agentls.yaml`). The answer is a
 * MODAL warning, because what is asked is whether a file shipped with the repository may run
 * a program as the user: the user must see the exact command line (or URL and headers) and
 * which variables it gets, as written, with the server's own list of which of the user's
 * variables each value reads (`header Authorization reads your $GITHUB_TOKEN`), and the
 * workspace files it runs or reads with a fingerprint of each (the approval covers their
 * contents). Only "Allow" approves; Cancel and Escape decline.
 *
 * No runtime dependency on VS Code: the UI and the log are handed in, so the prompt and the
 * answers are unit-tested.
 */
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';
import { Methods, type McpServerApprovalParams, type McpServerApprovalResult } from './protocol';

export const ALLOW = 'Allow';

/** Asks the user; `detail` is shown under the message; resolves to the button clicked. */
export type ModalWarning = (message: string, detail: string, ...actions: string[]) => Thenable<string | undefined>;

// Control characters, and the invisible and bidirectional ones that can make text read
// differently from what runs (a newline that pushes the rest out of sight, a right-to-left
// override that reverses an argument).
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

/** The text as written, with every character that could hide part of it shown as `\uXXXX`. */
export function visible(text: string): string {
  return text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export interface ApprovalPrompt {
  message: string;
  detail: string;
}

export function approvalPrompt(params: McpServerApprovalParams): ApprovalPrompt {
  // Quoted as JSON, so that a name cannot end the quotes and say more.
  const name = visible(JSON.stringify(params.name));
  const message = params.changed
    ? `The MCP server ${name} changed since you allowed it. Allow the new definition to start?`
    : `Allow the MCP server ${name} to start?`;
  const lines: string[] = [`Declared in ${visible(params.source)}.`];
  if (params.transport === 'stdio') {
    lines.push('', 'Command:', `  ${visible(params.command ?? '')}`);
    if (params.cwd) {
      lines.push(`Working directory: ${visible(params.cwd)}`);
    }
  } else {
    lines.push('', `URL (${params.transport}):`, `  ${visible(params.url ?? '')}`);
    // `?? {}` / `?? []`: a server older than these fields sends none of them.
    const headers = Object.entries(params.headers ?? {});
    if (headers.length > 0) {
      lines.push('Headers sent, as written:');
      for (const [key, value] of headers) {
        lines.push(`  ${visible(key)}: ${visible(value)}`);
      }
    } else if (params.headerNames.length > 0) {
      lines.push(`Headers sent: ${params.headerNames.map(visible).join(', ')}`);
    }
    if (params.tokenEnv) {
      lines.push(`Bearer token from your environment variable ${visible(params.tokenEnv)}`);
    }
  }
  const env = Object.entries(params.env);
  if (env.length > 0) {
    lines.push('', 'Environment variables it gets:');
    for (const [key, value] of env) {
      lines.push(`  ${visible(key)}=${visible(value)}`);
    }
  }
  if (params.envFile) {
    lines.push(`${env.length > 0 ? 'And the' : 'Environment:'} variables of ${visible(params.envFile)}`);
  }
  const files = params.files ?? [];
  if (files.length > 0) {
    lines.push('', 'Workspace files it runs or reads (a change to any asks again):');
    lines.push(...files.map((file) => `  ${visible(file)}`));
  }
  const reads = params.reads ?? [];
  if (reads.length > 0) {
    lines.push('', 'Your environment variables it would receive:');
    lines.push(...reads.map((line) => `  ${visible(line)}`));
  }
  if (params.trusted) {
    lines.push('', 'Its tools would run without asking you first (trusted: true).');
  }
  lines.push(
    '',
    params.transport === 'stdio'
      ? 'It runs as a program with your permissions. Allow it only if you trust this repository.'
      : 'agentls will send it your tool calls. Allow it only if you trust this repository.',
  );
  return { message, detail: lines.join('\n') };
}

/** Answers `agent/approveMcpServer` requests with a modal warning. */
export class McpApprovals {
  private handler: Disposable | undefined;

  constructor(
    private readonly modal: ModalWarning,
    private readonly log: (line: string) => void,
  ) {}

  attach(client: Pick<LanguageClient, 'onRequest'>): void {
    this.handler?.dispose();
    this.handler = client.onRequest(Methods.approveMcpServer, (params: McpServerApprovalParams, token: CancellationToken) =>
      this.answer(params, token),
    );
  }

  async answer(params: McpServerApprovalParams, token?: CancellationToken): Promise<McpServerApprovalResult> {
    const { message, detail } = approvalPrompt(params);
    const choice = await this.modal(message, detail, ALLOW);
    const approved = choice === ALLOW && !token?.isCancellationRequested;
    const what = params.transport === 'stdio' ? params.command : params.url;
    this.log(`MCP server ${JSON.stringify(params.name)} of ${params.source} (${what ?? ''}): ${approved ? 'allowed' : 'not allowed'}`);
    return { approved };
  }

  dispose(): void {
    this.handler?.dispose();
    this.handler = undefined;
  }
}
