import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandQuery, filterCommands, insertCommand, sourceLabel, typedCommand } from '../../panel/commandPicker';
import type { SlashCommandInfo } from '../../protocol';

function command(name: string, description = '', extra: Partial<SlashCommandInfo> = {}): SlashCommandInfo {
  return { name, description, hint: '', source: 'built-in', path: '', ...extra };
}

// In the server's order (by name), as agent/commands answers.
const COMMANDS = [
  command('clear', 'Start a new conversation.'),
  command('compact', 'Compact the conversation now: older steps become a summary.'),
  command('explain-file', 'Explain the open file', { hint: '<question>', source: 'workspace', path: '.github/prompts/explain-file.prompt.md' }),
  command('fix-tests', 'Fix the failing tests of a module', { hint: '<module>', source: 'workspace', path: '.github/prompts/fix-tests.prompt.md' }),
  command('init', 'Write a first AGENTS.md from what the repository shows (asks before writing).'),
  command('review', 'Review the uncommitted changes with the read-only review agent.'),
  command('standup', 'Summarise what I did', { source: 'user', path: 'your prompts/standup.prompt.md' }),
];

const names = (list: SlashCommandInfo[]): string[] => list.map((c) => c.name);

describe('commandQuery: when the picker is open', () => {
  it('opens on a slash at the start and follows the first word up to the caret', () => {
    assert.equal(commandQuery('/', 1), '');
    assert.equal(commandQuery('/fi', 3), 'fi');
    assert.equal(commandQuery('/fix-tests', 4), 'fix');
    assert.equal(commandQuery('/a.b_c-d', 8), 'a.b_c-d');
  });

  it('stays closed elsewhere: no slash first, after a space, a double slash, a caret past the word', () => {
    assert.equal(commandQuery('', 0), undefined);
    assert.equal(commandQuery('fix /it', 7), undefined);
    assert.equal(commandQuery(' /fix', 5), undefined);
    assert.equal(commandQuery('/fix ', 5), undefined);
    assert.equal(commandQuery('/fix auth', 9), undefined);
    assert.equal(commandQuery('//not a command', 2), undefined);
    assert.equal(commandQuery('/fix\nmore', 9), undefined);
    assert.equal(commandQuery('/fi/x', 3), undefined, 'the word under the caret is not a name');
  });
});

describe('filterCommands', () => {
  it('lists every command, in the server order, for a bare slash', () => {
    assert.deepEqual(names(filterCommands(COMMANDS, '')), names(COMMANDS));
  });

  it('puts names that start with the query first, then names that contain it, then descriptions', () => {
    assert.deepEqual(names(filterCommands(COMMANDS, 'c')), ['clear', 'compact', 'review']);
    assert.deepEqual(names(filterCommands(COMMANDS, 'co')), ['compact', 'clear', 'review']);
    assert.deepEqual(names(filterCommands(COMMANDS, 'e')), ['explain-file', 'clear', 'fix-tests', 'review', 'compact', 'init', 'standup']);
    assert.deepEqual(names(filterCommands(COMMANDS, 'te')), ['fix-tests', 'compact', 'init', 'review']);
  });

  it('ignores case and leaves out what matches nothing', () => {
    assert.deepEqual(names(filterCommands(COMMANDS, 'FIX')), ['fix-tests']);
    assert.deepEqual(filterCommands(COMMANDS, 'zzz'), []);
    assert.deepEqual(filterCommands([], ''), []);
  });
});

describe('insertCommand', () => {
  it('replaces what was typed of the name with the whole name and one space', () => {
    assert.deepEqual(insertCommand('/fi', 'fix-tests'), { text: '/fix-tests ', caret: 11 });
    assert.deepEqual(insertCommand('/', 'review'), { text: '/review ', caret: 8 });
  });

  it('keeps what followed the first word', () => {
    assert.deepEqual(insertCommand('/fi auth', 'fix-tests'), { text: '/fix-tests auth', caret: 11 });
    assert.deepEqual(insertCommand('/fi\nthen more', 'fix-tests'), { text: '/fix-tests \nthen more', caret: 11 });
  });
});

describe('typedCommand: the hint under the prompt', () => {
  it('is the known command the prompt starts with', () => {
    assert.equal(typedCommand('/fix-tests ', COMMANDS)?.hint, '<module>');
    assert.equal(typedCommand('/fix-tests auth', COMMANDS)?.name, 'fix-tests');
    assert.equal(typedCommand('/review', COMMANDS)?.name, 'review');
  });

  it('is nothing for a word still being typed into another name, an unknown name or plain text', () => {
    assert.equal(typedCommand('/fix', COMMANDS), undefined);
    assert.equal(typedCommand('/nope now', COMMANDS), undefined);
    assert.equal(typedCommand('fix-tests', COMMANDS), undefined);
    assert.equal(typedCommand('//fix-tests', COMMANDS), undefined);
  });
});

describe('sourceLabel', () => {
  it('names the prompt file, or says built-in', () => {
    assert.equal(sourceLabel(COMMANDS[0]), 'built-in');
    assert.equal(sourceLabel(COMMANDS[3]), '.github/prompts/fix-tests.prompt.md');
    assert.equal(sourceLabel(COMMANDS[6]), 'your prompts/standup.prompt.md');
  });
});
