/**
 * Everything the webview remembers between two events, in one typed object (the DOM it drew
 * is not repeated here). The extension's snapshot replaces the conversation, the options,
 * the agents and the worktrees whenever the webview starts again.
 */
import type { FolderPickerState } from '../src/folders';
import type { IncrementalMarkdown } from '../src/panel/markdown';
import type { PanelOptions } from '../src/panel/messages';
import { loadingPicker, type ModelPickerState } from '../src/panel/modelPicker';
import { emptyConversation, type Action, type Conversation } from '../src/panel/model';
import { emptyWorktrees, type WorktreeSessions } from '../src/panel/worktrees';
import type { AgentInfo, AttachCandidate, Attachment, SlashCommandInfo } from '../src/protocol';
import { keepViewState, savedViewState } from './host';
import { ui } from './layout';

/** Items of the conversation in the DOM at first, and added by each "Show earlier". */
export const WINDOW = 150;

/** A text block being streamed: its Markdown rendered incrementally, into elements kept. */
export interface Stream {
  inc: IncrementalMarkdown;
  stable: HTMLElement;
  tail: HTMLElement;
}

export interface PanelState {
  conversation: Conversation;
  options: PanelOptions;
  agents: AgentInfo[];
  /** The model picker as the extension last drew it (src/panel/modelPicker.ts). */
  models: ModelPickerState;
  worktrees: WorktreeSessions;
  /** The folder picker as the extension last drew it (src/folders.ts). */
  folders: FolderPickerState;
  /** The user opened the worktree section (it also shows whenever there is a worktree to show). */
  worktreesOpen: boolean;
  /** The extension's actions not yet applied: they are, once per animation frame. */
  queue: Action[];
  /** The animation frame that will apply them (0: none asked). */
  frame: number;
  /** How many of the last items are in the DOM. */
  shown: number;
  /** Tool cards and review notes the user expanded (kept open when the card is rebuilt). */
  openCards: Set<string>;
  /** Each item in the DOM, with the `rev` it was drawn at. */
  rendered: Map<string, { rev: number; el: HTMLElement }>;
  /** The text blocks being streamed, by item id. */
  streams: Map<string, Stream>;
  /** The key a picker took at its keydown: its keyup is not a move of the caret. */
  keyTakenByPicker?: string;
  /** The prompt box was empty at its last input (its first character is a sign of a run). */
  promptWasEmpty: boolean;
  /** The chips: what the next run is sent with. */
  attachments: Attachment[];
  /** The `@` picker's questions to the server: the last asked, the last answered and that answer. */
  attach: { asked: number; answered: number; candidates: AttachCandidate[]; notes: string[]; failure?: string };
  /** The workspace's commands as last listed (agent/commands), for the `/` picker and the hint. */
  commands: { list: SlashCommandInfo[]; problems: string[]; error?: string; loaded: boolean };
}

const saved = savedViewState();

// Empty until the extension's snapshot (the truth) replaces it.
export const state: PanelState = {
  conversation: emptyConversation(),
  options: { agent: 'build', confirmMode: 'confirm-sensitive', includeSelection: true, worktree: false },
  agents: [],
  models: loadingPicker(),
  worktrees: emptyWorktrees(),
  folders: { shown: false, options: [], selected: 'auto', locked: false, title: '' },
  worktreesOpen: false,
  queue: [],
  frame: 0,
  shown: typeof saved.shown === 'number' ? saved.shown : WINDOW,
  openCards: new Set<string>(Array.isArray(saved.open) ? saved.open : []),
  rendered: new Map(),
  streams: new Map(),
  promptWasEmpty: true,
  attachments: [],
  attach: { asked: 0, answered: 0, candidates: [], notes: [] },
  commands: { list: [], problems: [], loaded: false },
};

/** The draft saved with the view state, for the prompt box of a webview shown again. */
export const savedDraft = typeof saved.draft === 'string' ? saved.draft : '';

export function saveState(): void {
  keepViewState({ draft: ui.prompt.value, shown: state.shown, open: [...state.openCards] });
}
