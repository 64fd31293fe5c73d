/**
 * The palette commands: Run…, Run with agent…, New session, Cancel, Show output, Set API
 * key, Restart server.
 *
 * The palette is a conversation of its own, as each chat view of the peers is: every
 * "Agent: Run…" continues the session of the one before (kept per workspace, and per folder
 * in a multi-root workspace: a session lives in its folder) until the user runs "Agent: New
 * session". So the model of the next palette run remembers the last one, and hears what the
 * user decided about its edits since. A palette run works in the folder of the active
 * editor's file (else the one picked in the panel, else the first).
 */
import * as vscode from 'vscode';
import { undoRun } from './checkpoints';
import { logError } from './logging';
import { Methods, type AgentsResult } from './protocol';
import { buildPrompt, describeLines, workspaceRelative, type SelectionContext } from './prompt';
import type { RunOutcome, Runs } from './runs';
import type { ApiKeys } from './secrets';
import type { ServerManager } from './server';
import { runOptions, type AgentSettings } from './settings';
import type { FolderRef } from './folders';
import type { Ui } from './vscodeapi';
import { folderParam, openFolders, paletteFolder, shownFolderName } from './workspaceFolders';

export interface CommandDeps {
  server: ServerManager;
  runs: Runs;
  keys: ApiKeys;
  ui: Ui;
  output: vscode.OutputChannel;
  settings: () => AgentSettings;
  /** Tell the server a run is likely (`agent/prepare`). */
  prepare: () => Promise<unknown>;
  /** Where the palette's conversation is kept (the workspace's state). */
  state: vscode.Memento;
}

const PALETTE_SESSION_KEY = 'agentls.palette.sessionId';

/** Where the palette's session in `folder` is kept: the first folder keeps the key it had
 * before workspaces could have several (a single-folder window continues as it did). */
function paletteSessionKey(folder: FolderRef | undefined): string {
  return !folder || openFolders()[0]?.uri === folder.uri ? PALETTE_SESSION_KEY : `${PALETTE_SESSION_KEY}@${folder.uri}`;
}

/** Programmatic arguments of `agentls.run` (tests, keybindings with args). */
export interface RunArgs {
  prompt?: string;
  agent?: string;
  /** Add the active editor's selection as context (default true). */
  useSelection?: boolean;
}

function isRunArgs(value: unknown): value is RunArgs {
  return typeof value === 'object' && value !== null && !(value instanceof vscode.Uri) &&
    ('prompt' in value || 'agent' in value || 'useSelection' in value);
}

/** The active editor's selection; its path is `folder`'s (the run's) when the file lies in
 * it, else named with its own folder ("web/app.ts"). */
export function currentSelection(folder?: FolderRef): SelectionContext | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty || editor.document.uri.scheme !== 'file') {
    return undefined;
  }
  const { selection, document } = editor;
  const inFolder = folder ? workspaceRelative(folder.path, document.uri.fsPath) : undefined;
  // A selection ending at column 0 of a line does not include that line.
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line
    ? selection.end.line - 1
    : selection.end.line;
  return {
    path: inFolder ?? vscode.workspace.asRelativePath(document.uri, !!folder && openFolders().length > 1),
    startLine: selection.start.line + 1,
    endLine: endLine + 1,
    text: document.getText(selection),
    languageId: document.languageId,
  };
}

/** The active editor's file, relative to `folder` (the run's), when it is a file of that
 * folder: the server refuses a file of another folder, and the AGENTS.md files it selects
 * are the run's folder's. */
export function activeFile(folder: FolderRef | undefined): string | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (!document || !folder || document.uri.scheme !== 'file' || !folder.uri.startsWith('file:')) {
    return undefined;
  }
  return workspaceRelative(folder.path, document.uri.fsPath);
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { server, runs, keys, ui, output, settings, prepare, state } = deps;
  /** The palette's conversation has a run in flight (a session runs one at a time). */
  let paletteBusy = false;
  /** Bumped by "Agent: New session": a run started before it does not bring its session back. */
  let generation = 0;

  async function startRun(args: RunArgs, agent: string | undefined): Promise<RunOutcome | undefined> {
    const folder = paletteFolder(state);
    const sessionKey = paletteSessionKey(folder);
    const selection = args.useSelection === false ? undefined : currentSelection(folder);
    const continued = state.get<string>(sessionKey);
    let prompt = args.prompt;
    if (prompt === undefined) {
      void prepare(); // the prompt opens: a run is likely, the server gets ready meanwhile
      const shown = shownFolderName(folder);
      const where = shown ? ` in ${shown}` : '';
      const context = selection
        ? `The selected ${describeLines(selection.startLine, selection.endLine)} of ${selection.path} are added as context.`
        : 'What should the agent do?';
      prompt = await ui.showInputBox({
        title: `${agent ? `Agent (${agent}): Run` : 'Agent: Run'}${where}${continued ? ' · continues the conversation ("Agent: New session" starts over)' : ' · a new conversation'}`,
        prompt: context,
        placeHolder: 'e.g. Add type hints to this function and run the tests',
        ignoreFocusOut: true,
      });
    }
    if (!prompt || prompt.trim() === '') {
      return undefined;
    }
    const client = await server.ready();
    if (!client) {
      return undefined; // the server manager already told the user why
    }
    output.show(true);
    // With a palette run still going, this one cannot join its session: it starts its own.
    const sessionId = paletteBusy ? undefined : continued;
    const mine = !paletteBusy;
    paletteBusy ||= mine;
    const started = generation;
    try {
      const outcome = await runs.run(client, buildPrompt(prompt, selection), runOptions(settings(), agent), {
        ...(sessionId ? { sessionId } : {}),
        activeFile: activeFile(folder),
        folder,
      });
      const next = outcome.result?.sessionId;
      if (next && started === generation && (mine || !state.get<string>(sessionKey))) {
        await state.update(sessionKey, next);
      }
      return outcome;
    } finally {
      if (mine) {
        paletteBusy = false;
      }
    }
  }

  return [
    vscode.commands.registerCommand('agentls.run', (arg?: unknown) =>
      startRun(isRunArgs(arg) ? arg : {}, isRunArgs(arg) ? arg.agent : undefined),
    ),
    vscode.commands.registerCommand('agentls.runWithAgent', async (arg?: unknown) => {
      const args = isRunArgs(arg) ? arg : {};
      let agent = args.agent;
      if (!agent) {
        const client = await server.ready();
        if (!client) {
          return undefined;
        }
        let result: AgentsResult;
        try {
          result = await client.sendRequest<AgentsResult>(Methods.agents, { ...folderParam(paletteFolder(state)) });
        } catch (error) {
          logError(`${Methods.agents} failed`, error);
          void ui.showErrorMessage(`Agent: could not list the agents (${error instanceof Error ? error.message : String(error)}).`);
          return undefined;
        }
        const picked = await ui.showQuickPick(
          result.agents.map((a) => ({
            label: a.name,
            description: [a.readOnly ? 'read-only' : '', a.source === 'built-in' ? '' : a.source]
              .filter(Boolean)
              .join(' · ') || undefined,
            detail: a.description,
          })),
          { title: 'Agent: Run with agent', placeHolder: 'Pick an agent' },
        );
        agent = picked?.label;
      }
      return agent ? startRun(args, agent) : undefined;
    }),
    vscode.commands.registerCommand('agentls.newSession', async () => {
      generation += 1;
      for (const key of state.keys().filter((k) => k === PALETTE_SESSION_KEY || k.startsWith(`${PALETTE_SESSION_KEY}@`))) {
        await state.update(key, undefined);
      }
      void ui.showInformationMessage('Agent: the next "Agent: Run…" starts a new conversation.');
    }),
    vscode.commands.registerCommand('agentls.cancel', async (runId?: unknown) => {
      const cancelled = await runs.cancel(typeof runId === 'string' ? runId : undefined);
      if (!cancelled && runs.activeRunIds.length === 0) {
        void ui.showInformationMessage('Agent: no run to cancel.');
      }
      return cancelled;
    }),
    vscode.commands.registerCommand('agentls.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('agentls.undoRun', async (runId?: unknown) => {
      const client = await server.ready();
      const id = typeof runId === 'string' ? runId : undefined;
      return client ? undoRun(client, ui, id, (id ? runs.folderOf(id) : undefined) ?? paletteFolder(state)) : undefined;
    }),
    vscode.commands.registerCommand('agentls.setApiKey', async () => {
      const envName = settings().apiKeyEnv;
      const value = await ui.showInputBox({
        title: 'Agent: Set API key',
        prompt: `Stored in VS Code's secret storage and passed to the server as ${envName}. Empty: remove the stored key.`,
        password: true,
        ignoreFocusOut: true,
      });
      if (value === undefined) {
        return;
      }
      // Storing fires SecretStorage.onDidChange, which restarts the server (extension.ts).
      await keys.set(envName, value.trim());
      void ui.showInformationMessage(value.trim() ? `Agent: API key stored for ${envName}.` : `Agent: stored API key for ${envName} removed.`);
    }),
    vscode.commands.registerCommand('agentls.restartServer', async () => {
      runs.serverGone();
      const client = await server.restart();
      return client !== undefined;
    }),
  ];
}
