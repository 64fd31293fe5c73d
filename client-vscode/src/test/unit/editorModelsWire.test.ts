import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatMessages, chatTools, contentText, refusal } from '../../editorModelsWire';

describe('the server model call in vscode.lm shape', () => {
  it('puts the system prompt first as a user message and keeps the turns', () => {
    const messages = chatMessages([
      { role: 'system', content: 'You are agentls.' },
      { role: 'user', content: 'Add a notes file' },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', parts: [{ kind: 'text', value: 'You are agentls.' }] },
      { role: 'user', parts: [{ kind: 'text', value: 'Add a notes file' }] },
    ]);
  });

  it('turns tool calls into call parts and the results that follow into one user message', () => {
    const messages = chatMessages([
      {
        role: 'assistant',
        content: 'Writing both.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path": "a.md", "content": "a"}' } },
          { id: 'c2', type: 'function', function: { name: 'write_file', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Created a.md' },
      { role: 'tool', tool_call_id: 'c2', content: 'invalid arguments' },
      { role: 'assistant', content: null },
    ]);
    assert.deepEqual(messages, [
      {
        role: 'assistant',
        parts: [
          { kind: 'text', value: 'Writing both.' },
          { kind: 'toolCall', callId: 'c1', name: 'write_file', input: { path: 'a.md', content: 'a' } },
          { kind: 'toolCall', callId: 'c2', name: 'write_file', input: {} },
        ],
      },
      {
        role: 'user',
        parts: [
          { kind: 'toolResult', callId: 'c1', text: 'Created a.md' },
          { kind: 'toolResult', callId: 'c2', text: 'invalid arguments' },
        ],
      },
    ]);
  });

  it('reads the text of a list content and names an image it cannot send', () => {
    const text = contentText([
      { type: 'text', text: 'Look:' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    assert.equal(text, 'Look:\n[image not sent: this model is used through VS Code]');
  });

  it('turns OpenAI function tools into vscode.lm tools', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } } };
    const tools = chatTools([{ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: schema } }, { type: 'other' }]);
    assert.deepEqual(tools, [{ name: 'read_file', description: 'Read a file.', inputSchema: schema }]);
  });

  it('says why VS Code refused in words', () => {
    assert.match(refusal('NoPermissions', 'copilot/gpt-4o', 'x'), /did not allow agentls .* "Allow"/);
    assert.match(refusal('Blocked', 'copilot/gpt-4o', 'quota'), /blocked .*quota/);
    assert.match(refusal('NotFound', 'copilot/gpt-4o', 'gone'), /not available in VS Code/);
    assert.match(refusal(undefined, 'copilot/gpt-4o', 'boom'), /failed in VS Code: boom/);
  });
});
