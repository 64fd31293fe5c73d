/**
 * The commands the agent runs, in VS Code's terminal panel: one read-only terminal per run,
 * named for the run, mirroring each command's output and exit code (`agent/command`, which
 * the server sends because the extension declares `commandOutput`). The terminal opens
 * without taking focus: the user keeps typing where they were. A terminal the user closes
 * is opened again by the run's next command, or by "Show in terminal" on a tool card.
 */
import * as vscode from 'vscode';
import { CommandMirror } from './commandMirror';
import type { CommandParams } from './protocol';
import type { RunEvent } from './runs';

export const SHOW_TERMINAL_COMMAND = 'agentls.showCommandTerminal';

const NAME_CHARS = 40;
const KEPT_RUNS = 20;
/** Terminals of runs left open at most: older idle ones close (their output stays kept). */
const OPEN_TERMINALS = 5;

interface RunTerminal {
  mirror: CommandMirror;
  terminal: vscode.Terminal;
}

/** `agentls: fix the failing test` — the user's words of the run's prompt (without the
 * "(with …)" line the panel adds for the selection and attachments), on one short line. */
export function terminalName(prompt: string | undefined, runId: string): string {
  const words = (prompt ?? '').replace(/\n\n\(with [^\n]*\)\s*$/, '');
  const oneLine = words.replace(/\s+/g, ' ').trim();
  if (!oneLine) {
    return `agentls: ${runId}`;
  }
  return `agentls: ${oneLine.length > NAME_CHARS ? `${oneLine.slice(0, NAME_CHARS - 1)}…` : oneLine}`;
}

export class CommandTerminals implements vscode.Disposable {
  private readonly prompts = new Map<string, string>();
  private readonly terminals = new Map<string, RunTerminal>();
  /** Every run's mirror, kept after its terminal closes: "Show in terminal" opens it again. */
  private readonly mirrors = new Map<string, CommandMirror>();
  private readonly disposables: vscode.Disposable[];

  constructor(onRunEvent: vscode.Event<RunEvent>) {
    this.disposables = [
      onRunEvent((event) => this.onRunEvent(event)),
      vscode.commands.registerCommand(SHOW_TERMINAL_COMMAND, (runId: unknown) => this.show(String(runId))),
    ];
  }

  /** What the run's terminal has shown (tests read it). */
  text(runId: string): string | undefined {
    return this.mirrors.get(runId)?.text;
  }

  /** The name of the run's terminal while it is open. */
  terminalName(runId: string): string | undefined {
    return this.terminals.get(runId)?.terminal.name;
  }

  /** Reveal the run's terminal (opened again with what it showed if the user closed it). */
  show(runId: string): boolean {
    const mirror = this.mirrors.get(runId);
    if (!mirror) {
      return false;
    }
    const open = this.terminals.get(runId) ?? this.open(runId, mirror);
    open.terminal.show(false);
    return true;
  }

  private onRunEvent(event: RunEvent): void {
    if (event.type === 'runStarted') {
      this.prompts.set(event.runId, event.prompt);
    } else if (event.type === 'command') {
      this.onCommand(event.params);
    }
  }

  private onCommand(params: CommandParams): void {
    let mirror = this.mirrors.get(params.runId);
    if (!mirror) {
      mirror = new CommandMirror();
      this.mirrors.set(params.runId, mirror);
      this.forgetOldRuns();
    }
    if (params.event === 'started' && !this.terminals.has(params.runId)) {
      this.closeOldTerminals();
      // Shown, not focused: the editor or the panel keeps the keyboard.
      this.open(params.runId, mirror).terminal.show(true);
    }
    mirror.show(params);
  }

  /** Many runs do not pile up terminals: the oldest idle ones close ("Show in terminal" reopens). */
  private closeOldTerminals(): void {
    for (const [runId, { mirror, terminal }] of this.terminals) {
      if (this.terminals.size < OPEN_TERMINALS) {
        return;
      }
      if (!mirror.busy) {
        this.terminals.delete(runId);
        terminal.dispose();
      }
    }
  }

  /** Only the latest runs' output is kept: the oldest closed ones are forgotten. */
  private forgetOldRuns(): void {
    for (const runId of this.mirrors.keys()) {
      if (this.mirrors.size <= KEPT_RUNS) {
        return;
      }
      if (!this.terminals.has(runId)) {
        this.mirrors.delete(runId);
        this.prompts.delete(runId);
      }
    }
  }

  private open(runId: string, mirror: CommandMirror): RunTerminal {
    const pty: vscode.Pseudoterminal = mirror;
    const terminal = vscode.window.createTerminal({ name: terminalName(this.prompts.get(runId), runId), pty, isTransient: true });
    const entry = { mirror, terminal };
    this.terminals.set(runId, entry);
    mirror.onClosed = () => {
      if (this.terminals.get(runId) === entry) {
        this.terminals.delete(runId);
      }
    };
    return entry;
  }

  dispose(): void {
    for (const { terminal } of this.terminals.values()) {
      terminal.dispose();
    }
    this.terminals.clear();
    this.disposables.forEach((d) => d.dispose());
  }
}
