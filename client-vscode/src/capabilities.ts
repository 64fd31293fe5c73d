/**
 * Declares the client capabilities that are agentls's own, in
 * `capabilities.experimental.agentls` (e.g. `askUser: true`: the server may send
 * `agent/askUser` requests; `approveProgram: true`: it asks with `agent/approveProgram`
 * (a modal) before it runs a program the workspace declares that the user has not approved
 * (an MCP server, a file's hooks), instead of with a plain `window/showMessageRequest`;
 * `commandOutput: true`: it streams the agent's commands as `agent/command`, which
 * `commandTerminals.ts` mirrors in a terminal;
 * `diagnostics: true`: it asks VS Code for the problems of edited files with
 * `agent/diagnostics` instead of starting language servers of its own;
 * `navigation: true`: the agent's code navigation and renames ask VS Code's own providers
 * first with `agent/navigate`, answered by `navigation.ts`;
 * `notices: true`: a run's notices also come as `agent/notice`, shown in the panel;
 * `editorModels: true`: a run may use VS Code's language models (`editor/<vendor>/<id>`),
 * answered by `editorModels.ts`).
 */
import type { ClientCapabilities, FeatureState, StaticFeature } from 'vscode-languageclient';

export const AGENTLS_EXPERIMENTAL = { askUser: true, approveProgram: true, commandOutput: true, diagnostics: true, editorModels: true, navigation: true, notices: true } as const;

export function addAgentCapabilities(capabilities: ClientCapabilities, extra: Record<string, unknown> = {}): void {
  const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
  experimental.agentls = { ...((experimental.agentls as object | undefined) ?? {}), ...AGENTLS_EXPERIMENTAL, ...extra };
  capabilities.experimental = experimental;
}

export class AgentCapabilities implements StaticFeature {
  /** `extra`: more of `experimental.agentls`, read when the client starts (e.g. inlineReview). */
  constructor(private readonly extra: () => Record<string, unknown> = () => ({})) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    addAgentCapabilities(capabilities, this.extra());
  }

  initialize(): void {
    // Nothing to set up: the capability only announces what the client handles.
  }

  getState(): FeatureState {
    return { kind: 'static' };
  }

  clear(): void {
    // Stateless.
  }
}
