/**
 * The editor's models: the server sends a run's model call here when its model is
 * `editor/<vendor>/<id>`, and VS Code's Language Model API answers it (Copilot's models, or
 * any extension's provider), so no key is needed. The client declares
 * `experimental.agentls.editorModels` and answers:
 * - `agent/modelRequest`: `selectChatModels({vendor, id})`, `sendRequest` with the messages
 *   and tools (`editorModelsWire.ts` converts them) and a justification, which VS Code shows
 *   in its consent question the first time; each text or tool-call part of `response.stream`
 *   goes back as an `agent/modelPart` notification, then the request is answered. The
 *   server's `$/cancelRequest` (the run was cancelled) cancels VS Code's request. A refusal
 *   (`LanguageModelError` NoPermissions / Blocked / NotFound) is answered as an error in
 *   words the run's output shows.
 * - `agent/countTokens`: the model's own `countTokens`, one count per message.
 * - `agent/editorModels`: every chat model VS Code offers now.
 */
import * as vscode from 'vscode';
import { LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';
import { chatMessages, chatTools, refusal, type ChatMessage, type ChatPart } from './editorModelsWire';
import {
  Methods,
  type CountTokensParams,
  type CountTokensResult,
  type EditorModelsResult,
  type ModelRequestParams,
  type ModelRequestResult,
} from './protocol';

/** What VS Code shows when it asks the user whether agentls may use a model. */
export const JUSTIFICATION = 'agentls, the coding agent, sends your prompt and the files it reads to this model to work on your request.';

type Client = Pick<LanguageClient, 'onRequest' | 'sendNotification'>;

function lmPart(part: ChatPart): vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart {
  switch (part.kind) {
    case 'text':
      return new vscode.LanguageModelTextPart(part.value);
    case 'toolCall':
      return new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input);
    case 'toolResult':
      return new vscode.LanguageModelToolResultPart(part.callId, [new vscode.LanguageModelTextPart(part.text)]);
  }
}

function lmMessage(message: ChatMessage): vscode.LanguageModelChatMessage {
  const role = message.role === 'assistant' ? vscode.LanguageModelChatMessageRole.Assistant : vscode.LanguageModelChatMessageRole.User;
  return new vscode.LanguageModelChatMessage(role, message.parts.map(lmPart));
}

export class EditorModels implements Disposable {
  private handlers: Disposable[] = [];

  constructor(private readonly log: (line: string) => void) {}

  attach(client: Client): void {
    this.disposeHandlers();
    this.handlers = [
      client.onRequest(Methods.modelRequest, (params: ModelRequestParams, token: CancellationToken) => this.answer(client, params, token)),
      client.onRequest(Methods.countTokens, (params: CountTokensParams, token: CancellationToken) => this.count(params, token)),
      client.onRequest(Methods.editorModels, () => this.list()),
    ];
  }

  async list(): Promise<EditorModelsResult> {
    const models = await vscode.lm.selectChatModels();
    return {
      models: models.map((m) => ({ vendor: m.vendor, id: m.id, name: m.name, family: m.family, maxInputTokens: m.maxInputTokens })),
    };
  }

  private async model(vendor: string, id: string): Promise<vscode.LanguageModelChat> {
    const [model] = await vscode.lm.selectChatModels({ vendor, id });
    if (model === undefined) {
      throw new ResponseError(LSPErrorCodes.RequestFailed, refusal('NotFound', `${vendor}/${id}`, 'no such model is offered'));
    }
    return model;
  }

  async answer(client: Client, params: ModelRequestParams, token: CancellationToken): Promise<ModelRequestResult | ResponseError> {
    const name = `${params.vendor}/${params.model}`;
    const source = new vscode.CancellationTokenSource();
    const cancelled = token.onCancellationRequested(() => source.cancel());
    let calls = 0;
    try {
      const model = await this.model(params.vendor, params.model);
      const messages = chatMessages(params.messages).map(lmMessage);
      const tools = chatTools(params.tools);
      const options: vscode.LanguageModelChatRequestOptions = { justification: JUSTIFICATION, ...(tools.length > 0 ? { tools } : {}) };
      const response = await model.sendRequest(messages, options, source.token);
      for await (const part of response.stream) {
        if (source.token.isCancellationRequested) {
          break;
        }
        if (part instanceof vscode.LanguageModelTextPart) {
          if (part.value) {
            await client.sendNotification(Methods.modelPart, { token: params.token, text: part.value });
          }
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          calls += 1;
          const toolCall = { id: part.callId, name: part.name, arguments: part.input as Record<string, unknown> };
          await client.sendNotification(Methods.modelPart, { token: params.token, toolCall });
        }
      }
      if (source.token.isCancellationRequested) {
        this.log(`${name}: the request was cancelled`);
        return new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
      }
      return { finishReason: calls > 0 ? 'tool_calls' : 'stop' };
    } catch (error) {
      if (source.token.isCancellationRequested) {
        return new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
      }
      if (error instanceof ResponseError) {
        this.log(error.message);
        return error;
      }
      const code = error instanceof vscode.LanguageModelError ? error.code : undefined;
      const message = refusal(code, name, error instanceof Error ? error.message : String(error));
      this.log(message);
      return new ResponseError(LSPErrorCodes.RequestFailed, message);
    } finally {
      cancelled.dispose();
      source.dispose();
    }
  }

  async count(params: CountTokensParams, token: CancellationToken): Promise<CountTokensResult> {
    const model = await this.model(params.vendor, params.model);
    const source = new vscode.CancellationTokenSource();
    const cancelled = token.onCancellationRequested(() => source.cancel());
    try {
      // One count per message as the server sent it (a tool result alone is one message).
      const counts: number[] = [];
      for (const message of params.messages) {
        let tokens = 0;
        for (const converted of chatMessages([message])) {
          tokens += await model.countTokens(lmMessage(converted), source.token);
        }
        counts.push(tokens);
      }
      return { counts };
    } finally {
      cancelled.dispose();
      source.dispose();
    }
  }

  private disposeHandlers(): void {
    for (const handler of this.handlers) {
      handler.dispose();
    }
    this.handlers = [];
  }

  dispose(): void {
    this.disposeHandlers();
  }
}
