// A language-model chat provider (the public vscode.lm provider API) that answers from a
// script, so that the end-to-end tests can run agentls on "the editor's models" with no
// network: vendor `agentls-e2e`, model `scripted`. Installed by scripts/vscode_e2e.sh into
// the session's extensions folder. The tests drive it with two commands:
//   agentlsE2eLm.script(turns)  queue answers; a turn is a list of parts, each
//                               {text} | {toolCall: {id, name, input}} | {hang: true}
//                               | {refuse: 'NoPermissions' | 'Blocked' | 'NotFound'}
//                               (a hang streams nothing more until the request is cancelled;
//                               a refusal throws that LanguageModelError)
//   agentlsE2eLm.log()          what it was asked: [{messages, tools, cancelled, done}]
//   agentlsE2eLm.counted()      how many token counts it was asked for
// Each part is reported on its own, a moment apart, so that the answer streams.
'use strict';
const vscode = require('vscode');

const turns = [];
const log = [];
let counted = 0;

function describe(message) {
  const parts = [];
  for (const part of message.content) {
    if (part instanceof vscode.LanguageModelTextPart) {
      parts.push({ text: part.value });
    } else if (part instanceof vscode.LanguageModelToolCallPart) {
      parts.push({ toolCall: { id: part.callId, name: part.name, input: part.input } });
    } else if (part instanceof vscode.LanguageModelToolResultPart) {
      const text = part.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join('');
      parts.push({ toolResult: { id: part.callId, text } });
    }
  }
  return { role: message.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', parts };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const provider = {
  provideLanguageModelChatInformation() {
    return [
      {
        id: 'scripted',
        name: 'Scripted',
        family: 'scripted',
        version: '1',
        maxInputTokens: 100000,
        maxOutputTokens: 4000,
        capabilities: { toolCalling: true },
      },
    ];
  },
  async provideLanguageModelChatResponse(model, messages, options, progress, token) {
    const entry = { messages: messages.map(describe), tools: (options.tools || []).map((t) => t.name), cancelled: false, done: false };
    log.push(entry);
    token.onCancellationRequested(() => {
      entry.cancelled = true;
    });
    const turn = turns.shift() || [{ text: '(no scripted answer)' }];
    for (const part of turn) {
      if (token.isCancellationRequested) {
        return;
      }
      await pause(50);
      if (part.refuse) {
        throw vscode.LanguageModelError[part.refuse](`the scripted provider refuses (${part.refuse})`);
      }
      if (part.hang) {
        await new Promise((resolve) => token.onCancellationRequested(resolve));
        return;
      }
      if (part.text !== undefined) {
        progress.report(new vscode.LanguageModelTextPart(part.text));
      } else if (part.toolCall) {
        progress.report(new vscode.LanguageModelToolCallPart(part.toolCall.id, part.toolCall.name, part.toolCall.input));
      }
    }
    entry.done = true;
  },
  async provideTokenCount(model, text) {
    counted += 1;
    const value = typeof text === 'string' ? text : JSON.stringify(describe(text));
    return Math.ceil(value.length / 4);
  },
};

exports.activate = function activate(context) {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('agentls-e2e', provider),
    vscode.commands.registerCommand('agentlsE2eLm.script', (more) => {
      turns.push(...more);
    }),
    vscode.commands.registerCommand('agentlsE2eLm.log', () => JSON.parse(JSON.stringify(log))),
    vscode.commands.registerCommand('agentlsE2eLm.counted', () => counted),
  );
};

exports.deactivate = function deactivate() {};
