/**
 * What one run's terminal shows: each command the agent runs (`agent/command`), its output
 * as it comes and its exit code. It is a read-only pseudoterminal: keys typed in it reach
 * nothing (the command runs in the server's sandbox, not in this terminal), and the first
 * one is answered with a line that says so.
 *
 * No runtime dependency on VS Code: it has the shape of `vscode.Pseudoterminal`, so
 * `commandTerminals.ts` hands it to `createTerminal` and the unit tests drive it as is.
 */
import type { CommandParams } from './protocol';

type Listener = (text: string) => void;

/** The subset of `vscode.Event<string>` a terminal uses. */
export interface WriteEvent {
  (listener: Listener): { dispose(): void };
}

export const READ_ONLY_NOTE = "This terminal shows the agent's commands; it takes no input.";

/** Terminal text: every line break as CR LF (a lone LF only moves down a line). */
export function terminalText(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/** The last line of a command: how it ended. */
export function endLine(params: Pick<CommandParams, 'exitCode' | 'timedOut'>): string {
  if (params.timedOut) {
    return 'stopped: the time limit was reached';
  }
  if (params.exitCode === undefined) {
    return 'stopped';
  }
  return `exit code ${params.exitCode}`;
}

export class CommandMirror {
  private readonly listeners = new Set<Listener>();
  private opened = false;
  private toldReadOnly = false;
  /** Everything shown, for the end-to-end tests. */
  private shownText = '';
  /** Commands started and not ended, by call id. */
  private readonly running = new Set<string>();
  /** The call whose output was shown last: output of another call gets its own header. */
  private lastCall: string | undefined;
  private readonly commands = new Map<string, string>();

  readonly onDidWrite: WriteEvent = (listener: Listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  /** The user closed the terminal. */
  onClosed: (() => void) | undefined;

  /**
   * VS Code opened a terminal on this mirror: it drops what was written earlier, so all
   * that was shown is written now (also when the user closed the run's terminal and it is
   * opened again).
   */
  open(): void {
    this.opened = true;
    if (this.shownText) {
      this.emit(this.shownText);
    }
  }

  close(): void {
    this.opened = false;
    this.onClosed?.();
  }

  handleInput(): void {
    if (!this.toldReadOnly) {
      this.toldReadOnly = true;
      this.write(`\r\n\x1b[2m${READ_ONLY_NOTE}\x1b[0m\r\n`);
    }
  }

  /** What the terminal has shown (escape sequences included). */
  get text(): string {
    return this.shownText;
  }

  /** Whether a command of this terminal is still running. */
  get busy(): boolean {
    return this.running.size > 0;
  }

  show(params: CommandParams): void {
    if (params.event === 'started') {
      this.running.add(params.callId);
      this.commands.set(params.callId, params.command ?? '');
      this.header(params.callId, false);
    } else if (params.event === 'output') {
      if (params.text) {
        if (this.lastCall !== params.callId) {
          this.header(params.callId, true);
        }
        this.write(terminalText(params.text));
      }
    } else {
      this.running.delete(params.callId);
      const line = endLine(params);
      const failed = params.timedOut || params.exitCode !== 0;
      // The output may end without a line break: the end line starts on a line of its own.
      const lead = this.shownText.endsWith('\n') || this.shownText === '' ? '' : '\r\n';
      this.write(`${lead}\x1b[${failed ? '31' : '2'}m[${line}]\x1b[0m\r\n\r\n`);
      this.lastCall = undefined;
    }
  }

  private header(callId: string, resumed: boolean): void {
    const command = this.commands.get(callId) ?? '';
    const lead = this.shownText.endsWith('\n') || this.shownText === '' ? '' : '\r\n';
    const lines = terminalText(command).split('\r\n');
    const shown = lines.map((line, i) => (i === 0 ? `$ ${line}` : `> ${line}`)).join('\r\n');
    this.write(`${lead}\x1b[1m${shown}\x1b[0m${resumed ? ' \x1b[2m(continued)\x1b[0m' : ''}\r\n`);
    this.lastCall = callId;
  }

  private write(text: string): void {
    this.shownText += text;
    if (this.opened) {
      this.emit(text);
    }
  }

  private emit(text: string): void {
    for (const listener of this.listeners) {
      listener(text);
    }
  }
}
