/**
 * `agent/approveProgram`: the server asks before it runs a program that the workspace
 * declares (an MCP server of `.mcp.json`, `.vscode/mcp.json` or `.agentls.yaml`; the hooks
 * of `.agentls/hooks.json`, `.claude/settings.json` or `.agentls.yaml`) and the user has not
 * approved in its present form. The answer is a MODAL warning, because what is asked is
 * whether a file shipped with the repository may run a program as the user: the user must
 * see what it runs exactly as written (the command line or URL and headers, each variable
 * and which of the user's variables a value reads, each hook's command) and the workspace
 * files it runs or reads with a fingerprint each (the approval covers their contents). The
 * server words the question and the lines, the same for every kind of program and every
 * front end; this module only lays them out. Only "Allow" approves (the server stores it
 * like `agentls mcp approve` / `agentls hooks approve`); Cancel and Escape decline.
 *
 * No runtime dependency on VS Code: the UI and the log are handed in, so the prompt and the
 * answers are unit-tested.
 */
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';
import { Methods, type ProgramApprovalParams, type ProgramApprovalResult } from './protocol';

export const ALLOW = 'Allow';

/** Asks the user; `detail` is shown under the message; resolves to the button clicked. */
export type ModalWarning = (message: string, detail: string, ...actions: string[]) => Thenable<string | undefined>;

// Control characters, and the invisible and bidirectional ones that can make text read
// differently from what runs (a newline that pushes the rest out of sight, a right-to-left
// override that reverses an argument). The server shows them already; this is the second
// line of defence.
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

export function approvalPrompt(params: ProgramApprovalParams): ApprovalPrompt {
  const lines = [`Declared in ${visible(params.source)}:`, '', ...params.lines.map((line) => `  ${visible(line)}`)];
  lines.push('', visible(params.warning));
  return { message: visible(params.headline), detail: lines.join('\n') };
}

/** How the log names the program: `MCP server "github"`, `Hooks`. */
function named(params: ProgramApprovalParams): string {
  switch (params.kind) {
    case 'mcp_server':
      return `MCP server ${JSON.stringify(params.name)}`;
    case 'hooks':
      return 'Hooks';
    default:
      return `Program ${JSON.stringify(params.name)}`;
  }
}

/** Answers `agent/approveProgram` requests with a modal warning. */
export class ProgramApprovals {
  private handler: Disposable | undefined;

  constructor(
    private readonly modal: ModalWarning,
    private readonly log: (line: string) => void,
  ) {}

  attach(client: Pick<LanguageClient, 'onRequest'>): void {
    this.handler?.dispose();
    this.handler = client.onRequest(Methods.approveProgram, (params: ProgramApprovalParams, token: CancellationToken) =>
      this.answer(params, token),
    );
  }

  async answer(params: ProgramApprovalParams, token?: CancellationToken): Promise<ProgramApprovalResult> {
    const { message, detail } = approvalPrompt(params);
    const choice = await this.modal(message, detail, ALLOW);
    const approved = choice === ALLOW && !token?.isCancellationRequested;
    this.log(`${named(params)} of ${params.source} (${params.lines[0] ?? ''}): ${approved ? 'allowed' : 'not allowed'}`);
    return { approved };
  }

  dispose(): void {
    this.handler?.dispose();
    this.handler = undefined;
  }
}
