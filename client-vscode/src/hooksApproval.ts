/**
 * `agent/approveHooks`: at the start of a run in a trusted folder, the server asks before it
 * obeys hooks that the workspace declares (`.agentls/hooks.json`, `.claude/settings.json`,
 * `.agentls.yaml`) and the user has not approved in their present form. The answer is a
 * MODAL warning, as for MCP servers: each hook is a shell command that runs as the user at
 * an event of the agent's runs, so the user must see every command exactly as written, and
 * the workspace scripts it runs with a fingerprint each (the approval covers their contents). Only
 * "Allow" approves (the server stores it like `agentls hooks approve`); Cancel and Escape
 * decline.
 *
 * No runtime dependency on VS Code: the UI and the log are handed in, so the prompt and the
 * answers are unit-tested.
 */
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';
import { ALLOW, visible, type ApprovalPrompt, type ModalWarning } from './mcpApproval';
import { Methods, type HooksApprovalParams, type HooksApprovalResult } from './protocol';

export function hooksPrompt(params: HooksApprovalParams): ApprovalPrompt {
  const source = visible(params.source);
  const message = params.changed
    ? `The hooks of ${source} changed since you allowed them. Allow the new hooks to run?`
    : `Allow the hooks of ${source} to run?`;
  const lines: string[] = [`${source} declares ${params.hooks.length === 1 ? 'a hook' : `${params.hooks.length} hooks`}: commands the agent runs at events of its runs.`];
  for (const hook of params.hooks) {
    const on = hook.matcher ? ` for ${visible(hook.matcher)}` : '';
    lines.push('', `${visible(hook.event)}${on} (stopped after ${hook.timeout} s):`, `  ${visible(hook.command)}`);
    for (const file of hook.files ?? []) {
      lines.push(`    runs or reads workspace file ${visible(file)}`);
    }
  }
  lines.push(
    '',
    'Each runs as a program with your permissions, and a hook can block or change what the agent does. Allow them only if you trust this repository.',
  );
  return { message, detail: lines.join('\n') };
}

/** Answers `agent/approveHooks` requests with a modal warning. */
export class HooksApprovals {
  private handler: Disposable | undefined;

  constructor(
    private readonly modal: ModalWarning,
    private readonly log: (line: string) => void,
  ) {}

  attach(client: Pick<LanguageClient, 'onRequest'>): void {
    this.handler?.dispose();
    this.handler = client.onRequest(Methods.approveHooks, (params: HooksApprovalParams, token: CancellationToken) => this.answer(params, token));
  }

  async answer(params: HooksApprovalParams, token?: CancellationToken): Promise<HooksApprovalResult> {
    const { message, detail } = hooksPrompt(params);
    const choice = await this.modal(message, detail, ALLOW);
    const approved = choice === ALLOW && !token?.isCancellationRequested;
    this.log(`Hooks of ${params.source} (${params.hooks.map((h) => h.command).join(' ; ')}): ${approved ? 'allowed' : 'not allowed'}`);
    return { approved };
  }

  dispose(): void {
    this.handler?.dispose();
    this.handler = undefined;
  }
}
