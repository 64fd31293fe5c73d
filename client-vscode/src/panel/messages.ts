/**
 * The messages between the agent panel's webview and the extension (types only: both sides
 * import them; the webview bundle gets no code from here).
 */
import type { FolderPickerState } from '../folders';
import type { AgentInfo, AttachCandidate, Attachment, SlashCommandInfo, SessionInfo } from '../protocol';
import type { Action, Conversation } from './model';
import type { ModelPickerState } from './modelPicker';
import type { WorktreeSessions } from './worktrees';

export type ConfirmChoice = 'yolo' | 'confirm-sensitive' | 'confirm-all';

export interface PanelOptions {
  agent: string;
  confirmMode: ConfirmChoice;
  includeSelection: boolean;
  /** The next run works in a git worktree of its own (beside any run in the user's tree). */
  worktree: boolean;
  /** The model the user chose in the picker (an id from `agent/models`); absent: the server's current model. */
  model?: string;
}

/** Extension → webview. */
export type ToWebview =
  | {
      type: 'snapshot';
      conversation: Conversation;
      options: PanelOptions;
      agents: AgentInfo[];
      restricted: boolean;
      worktrees: WorktreeSessions;
      models: ModelPickerState;
      folders: FolderPickerState;
    }
  /** The folder picker, drawn again (folders added or removed, another active editor, a new conversation). */
  | { type: 'folders'; picker: FolderPickerState }
  /** The model picker, listed again (the panel opened, the settings changed). */
  | { type: 'models'; picker: ModelPickerState }
  /** The view's title-bar actions: show or hide the past sessions, the worktree sessions. */
  | { type: 'toggleSessions' }
  | { type: 'toggleWorktrees' }
  /** The worktree sessions changed (sent whole: they are few). */
  | { type: 'worktrees'; worktrees: WorktreeSessions }
  | { type: 'action'; action: Action }
  | { type: 'agents'; agents: AgentInfo[] }
  /** The answer to `listSessions` (agent/sessions), newest first. */
  | { type: 'sessions'; sessions: SessionInfo[]; error?: string }
  /** The answer to `listCommands` (agent/commands); `error` when it could not be asked. */
  | { type: 'commands'; commands: SlashCommandInfo[]; problems: string[]; error?: string }
  /** The answer to `attachCandidates` (agent/attachCandidates) for the query typed after `@`. */
  | { type: 'attachCandidates'; seq: number; items: AttachCandidate[]; notes: string[]; error?: string }
  | { type: 'focusPrompt' }
  /** agent/message was refused: the text goes back into the box, with the reason. */
  | { type: 'messageRejected'; text: string; reason: string }
  /** Whether the folder is in Restricted Mode (not trusted by VS Code's Workspace Trust). */
  | { type: 'restricted'; restricted: boolean };

/** Webview → extension. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'run'; prompt: string; options: PanelOptions; attachments?: Attachment[] }
  /** What was typed after `@`: the server's files and symbols that match it. */
  | { type: 'attachCandidates'; query: string; seq: number }
  /** The user started typing a prompt (sent when the prompt box stops being empty). */
  | { type: 'typing' }
  | { type: 'options'; options: PanelOptions }
  /** The folder picker's choice: `auto` (the active editor's folder) or a folder's URI. */
  | { type: 'pickFolder'; value: string }
  | { type: 'cancel' }
  /** Written while a run works: goes to that run (agent/message). */
  | { type: 'message'; text: string; mode: 'queue' | 'steer' }
  | { type: 'approve'; id: string; answer: string }
  | { type: 'answer'; id: string; answer: string | null }
  | { type: 'openLink'; href: string }
  | { type: 'openEdit'; path: string; runId: string }
  /** "Show in terminal" on a tool card: the run's terminal, which mirrors its commands. */
  | { type: 'showTerminal'; runId: string }
  /** An instruction file named in a run's header (workspace-relative). */
  | { type: 'openFile'; path: string }
  /** The command picker opened: the commands of the workspace, read now. */
  | { type: 'listCommands' }
  | { type: 'listSessions' }
  | { type: 'openSession'; sessionId: string }
  | { type: 'continueSession' }
  | { type: 'undoRun'; runId: string }
  /** The worktree section: list again (agent/worktrees), apply, discard, stop its run. */
  | { type: 'listWorktrees' }
  | { type: 'applyWorktree'; name: string }
  | { type: 'discardWorktree'; name: string }
  | { type: 'stopRun'; runId: string }
  | { type: 'manageTrust' };
