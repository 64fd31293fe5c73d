/**
 * VS Code's Workspace Trust is the truth for the server: the extension says at start whether
 * the folder is trusted (`initializationOptions.workspaceTrusted`, server.ts) and tells the
 * running server when the user grants trust (`agent/workspaceTrust`), so that it reloads its
 * config with the folder's own files without a restart. Until then the panel and the run's
 * status bar tooltip say the folder is in Restricted Mode, with a way to trust it.
 */
import * as vscode from 'vscode';
import { logInfo } from './logging';
import type { AgentPanel } from './panel/provider';
import type { ServerManager } from './server';
import type { RunStatusBar } from './statusBar';
import { RESTRICTED_NOTICE } from './trust';

export interface TrustDeps {
  server: ServerManager;
  panel: AgentPanel;
  statusBar: RunStatusBar;
}

export function watchWorkspaceTrust({ server, panel, statusBar }: TrustDeps): vscode.Disposable[] {
  const restricted = !vscode.workspace.isTrusted;
  panel.setRestricted(restricted);
  statusBar.setRestricted(restricted);
  if (restricted) {
    logInfo(RESTRICTED_NOTICE);
  }
  return [
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      logInfo('Workspace Trust granted: the folder\'s agentls settings and MCP servers apply now');
      panel.setRestricted(false);
      statusBar.setRestricted(false);
      await server.trustGranted();
    }),
  ];
}
