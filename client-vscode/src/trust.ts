/**
 * What the extension tells the user about VS Code's Workspace Trust (pure: the webview
 * bundle and the unit tests import it too).
 *
 * In Restricted Mode the server obeys only what cannot widen anything in the folder's
 * `.agentls.yaml`, reads none of its MCP files, and VS Code itself gives the restricted
 * `agentls.*` settings (package.json `capabilities.untrustedWorkspaces`) their user values
 * only. The user should know why the agent behaves differently here, and where to change it.
 */

export const RESTRICTED_NOTICE = "Restricted Mode: this folder's agentls settings and MCP servers are ignored until you trust it.";
/** VS Code's own command that opens the Workspace Trust editor. */
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';
export const MANAGE_TRUST_LABEL = 'Manage Workspace Trust';
