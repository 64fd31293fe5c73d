import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandMirror, endLine, READ_ONLY_NOTE, terminalText } from '../../commandMirror';
import type { CommandParams } from '../../protocol';

function started(callId: string, command: string): CommandParams {
  return { runId: 'r1', callId, event: 'started', tool: 'execute_command', command };
}

function output(callId: string, text: string): CommandParams {
  return { runId: 'r1', callId, event: 'output', text };
}

function ended(callId: string, exitCode: number | undefined, timedOut?: boolean): CommandParams {
  return { runId: 'r1', callId, event: 'ended', ...(exitCode === undefined ? {} : { exitCode }), ...(timedOut ? { timedOut } : {}) };
}

// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('CommandMirror', () => {
  it('writes nothing before VS Code opens it, then everything shown so far, then live', () => {
    const mirror = new CommandMirror();
    const written: string[] = [];
    mirror.onDidWrite((text) => written.push(text));
    mirror.show(started('c1', 'pytest -q'));
    mirror.show(output('c1', '..F\n'));
    assert.deepEqual(written, []);
    mirror.open();
    mirror.show(output('c1', '1 failed\n'));
    mirror.show(ended('c1', 1));
    assert.equal(plain(written.join('')), '$ pytest -q\r\n..F\r\n1 failed\r\n[exit code 1]\r\n\r\n');
    assert.equal(written.join(''), mirror.text);
    assert.equal(mirror.busy, false);
  });

  it('shows a multi-line command and an end line even after output without a line break', () => {
    const mirror = new CommandMirror();
    mirror.show(started('c1', "python - <<'EOF'\nprint(1)\nEOF"));
    mirror.show(output('c1', 'no newline'));
    assert.equal(mirror.busy, true);
    mirror.show(ended('c1', undefined, true));
    assert.equal(plain(mirror.text), "$ python - <<'EOF'\r\n> print(1)\r\n> EOF\r\nno newline\r\n[stopped: the time limit was reached]\r\n\r\n");
  });

  it('names the command again when the output of another call comes between', () => {
    const mirror = new CommandMirror();
    mirror.show(started('a', 'make a'));
    mirror.show(started('b', 'make b'));
    mirror.show(output('a', 'from a\n'));
    mirror.show(ended('a', 0));
    mirror.show(output('b', 'from b\n'));
    mirror.show(ended('b', 2));
    assert.equal(
      plain(mirror.text),
      '$ make a\r\n$ make b\r\n$ make a (continued)\r\nfrom a\r\n[exit code 0]\r\n\r\n$ make b (continued)\r\nfrom b\r\n[exit code 2]\r\n\r\n',
    );
  });

  it('is read-only: the first key typed is answered once, nothing is sent anywhere', () => {
    const mirror = new CommandMirror();
    mirror.open();
    mirror.handleInput();
    mirror.handleInput();
    assert.equal(plain(mirror.text).split(READ_ONLY_NOTE).length, 2);
  });

  it('replays what it showed when the user closed the terminal and it opens again', () => {
    const mirror = new CommandMirror();
    let closed = 0;
    mirror.onClosed = () => (closed += 1);
    mirror.open();
    mirror.show(started('c1', 'ls'));
    mirror.close();
    mirror.show(output('c1', 'a.py\n'));
    const again: string[] = [];
    mirror.onDidWrite((text) => again.push(text));
    mirror.open();
    assert.equal(closed, 1);
    assert.equal(plain(again.join('')), '$ ls\r\na.py\r\n');
  });
});

describe('terminal text', () => {
  it('turns every line break into CR LF and names how a command ended', () => {
    assert.equal(terminalText('a\nb\r\nc'), 'a\r\nb\r\nc');
    assert.equal(endLine({ exitCode: 0 }), 'exit code 0');
    assert.equal(endLine({}), 'stopped');
  });
});
