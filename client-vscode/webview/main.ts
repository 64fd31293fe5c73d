/**
 * The agent panel's webview: renders the conversation (src/panel/model.ts) with plain DOM.
 * This module sets the parts up and hands them what the extension sends; each part is a
 * module of its own: layout.ts (the static elements), state.ts (what the webview remembers),
 * conversation.ts and items.ts (drawing the conversation), composer.ts (the prompt box and
 * the run options), commandPicker.ts and attachments.ts (the pickers, each a
 * listboxPicker.ts), modelPicker.ts (the model picker of the composer's row), sessions.ts
 * and worktrees.ts (the sections the view's title-bar actions show).
 * esbuild bundles them into the one script the panel loads (esbuild.webview.mjs).
 */
import type { ToWebview } from '../src/panel/messages';
import { showAttachCandidates } from './attachments';
import { showCommands } from './commandPicker';
import { applyOptions, messageRejected, setUpComposer } from './composer';
import { queueAction, render, setUpConversation } from './conversation';
import { post } from './host';
import { ui } from './layout';
import { renderModels } from './modelPicker';
import { showSessions, toggleSessions } from './sessions';
import { renderFolders, setUpFolderPicker } from './folderPicker';
import { state } from './state';
import { renderWorktrees, toggleWorktrees } from './worktrees';

setUpConversation();
setUpComposer();
setUpFolderPicker();

// Links in the model's text open through the extension, never in the webview.
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('a') : null;
  if (target) {
    event.preventDefault();
    const href = target.getAttribute('data-href');
    if (href) {
      post({ type: 'openLink', href });
    }
  }
});

// ---- messages from the extension -----------------------------------------------------------

function receive(message: ToWebview): void {
  switch (message.type) {
    case 'snapshot':
      state.conversation = message.conversation;
      state.options = message.options;
      state.agents = message.agents;
      ui.trustBar.hidden = !message.restricted;
      state.worktrees = message.worktrees;
      state.models = message.models;
      state.folders = message.folders;
      state.queue.length = 0;
      applyOptions();
      renderModels();
      renderFolders();
      render();
      renderWorktrees();
      break;
    case 'folders':
      state.folders = message.picker;
      renderFolders();
      break;
    case 'models':
      state.models = message.picker;
      renderModels();
      break;
    case 'toggleSessions':
      toggleSessions();
      break;
    case 'toggleWorktrees':
      toggleWorktrees();
      if (!ui.worktreesBox.hidden) {
        (ui.worktreesBox.querySelector('button') as HTMLButtonElement | null)?.focus();
      }
      break;
    case 'worktrees':
      state.worktrees = message.worktrees;
      renderWorktrees();
      break;
    case 'action':
      queueAction(message.action);
      break;
    case 'agents':
      state.agents = message.agents;
      applyOptions();
      break;
    case 'sessions':
      showSessions(message.sessions, message.error);
      break;
    case 'commands':
      showCommands(message);
      break;
    case 'attachCandidates':
      showAttachCandidates(message);
      break;
    case 'focusPrompt':
      ui.prompt.focus();
      break;
    case 'messageRejected':
      messageRejected(message);
      break;
    case 'restricted':
      ui.trustBar.hidden = !message.restricted;
      break;
    default:
      unknownMessage(message);
  }
}

/** A message this webview does not know is left alone; the compiler checks every one of ToWebview has its case. */
function unknownMessage(_message: never): void {}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => receive(event.data));

post({ type: 'ready' });
