/**
 * The server's model call (OpenAI-style messages and tools, as `agent/modelRequest` carries
 * them) in the shape of VS Code's Language Model API, without VS Code: `editorModels.ts`
 * turns these into `LanguageModelChatMessage`s. Kept apart so the conversion is unit-tested.
 *
 * vscode.lm knows two roles: the system prompt goes first as a User message (as Cline and
 * Roo send it), an assistant's tool calls become tool-call parts, and the tool results that
 * follow them (consecutive `tool` messages) one User message of tool-result parts, each
 * naming the call it answers.
 */

export type ChatPart =
  | { kind: 'text'; value: string }
  | { kind: 'toolCall'; callId: string; name: string; input: Record<string, unknown> }
  | { kind: 'toolResult'; callId: string; text: string };

export interface ChatMessage {
  role: 'user' | 'assistant';
  parts: ChatPart[];
}

export interface ChatTool {
  name: string;
  description: string;
  inputSchema?: object;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a message's `content`: a string, or the text parts of a list (an image is
 * named, not sent: vscode.lm takes no image from an extension). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (!isObject(part)) {
          return '';
        }
        if (typeof part.text === 'string') {
          return part.text;
        }
        return part.type === 'image_url' ? '[image not sent: this model is used through VS Code]' : '';
      })
      .filter((text) => text !== '')
      .join('\n');
  }
  return '';
}

function parsedArguments(raw: unknown): Record<string, unknown> {
  if (isObject(raw)) {
    return raw;
  }
  if (typeof raw === 'string' && raw.trim() !== '') {
    try {
      const value: unknown = JSON.parse(raw);
      return isObject(value) ? value : {};
    } catch {
      return {};
    }
  }
  return {};
}

export function chatMessages(messages: readonly Json[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const role = message.role;
    const text = contentText(message.content);
    if (role === 'assistant') {
      const parts: ChatPart[] = text ? [{ kind: 'text', value: text }] : [];
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      for (const call of calls) {
        if (!isObject(call)) {
          continue;
        }
        const fn = isObject(call.function) ? call.function : {};
        parts.push({ kind: 'toolCall', callId: String(call.id ?? ''), name: String(fn.name ?? ''), input: parsedArguments(fn.arguments) });
      }
      if (parts.length > 0) {
        out.push({ role: 'assistant', parts });
      }
    } else if (role === 'tool') {
      const result: ChatPart = { kind: 'toolResult', callId: String(message.tool_call_id ?? ''), text };
      const last = out[out.length - 1];
      if (last !== undefined && last.role === 'user' && last.parts.every((p) => p.kind === 'toolResult')) {
        last.parts.push(result);
      } else {
        out.push({ role: 'user', parts: [result] });
      }
    } else if (text) {
      // system and user alike: vscode.lm has no system role
      out.push({ role: 'user', parts: [{ kind: 'text', value: text }] });
    }
  }
  return out;
}

export function chatTools(tools: readonly Json[]): ChatTool[] {
  const out: ChatTool[] = [];
  for (const tool of tools) {
    const fn = isObject(tool.function) ? tool.function : undefined;
    if (fn === undefined || typeof fn.name !== 'string') {
      continue;
    }
    const parameters = isObject(fn.parameters) ? fn.parameters : undefined;
    out.push({ name: fn.name, description: typeof fn.description === 'string' ? fn.description : '', ...(parameters ? { inputSchema: parameters } : {}) });
  }
  return out;
}

/** Why VS Code refused, in words for the run's output; `code` is `LanguageModelError.code`. */
export function refusal(code: string | undefined, model: string, message: string): string {
  switch (code) {
    case 'NoPermissions':
      return `VS Code did not allow agentls to use the language model ${model}: answer "Allow" when VS Code asks, or allow it under Accounts > Manage Language Model Access (${message})`;
    case 'Blocked':
      return `VS Code blocked the request to ${model} (a quota or rate limit, or the vendor refused it): ${message}`;
    case 'NotFound':
      return `the language model ${model} is not available in VS Code now (signed out, or its extension is disabled): ${message}`;
    default:
      return `the language model ${model} failed in VS Code: ${message}`;
  }
}
