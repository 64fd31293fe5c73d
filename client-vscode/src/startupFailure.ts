/**
 * Turns what we know about a server that did not start (spawn error, exit code, the tail of
 * its stderr) into one sentence for the user, with the setting to look at. Pure, unit-tested.
 */
import type { LaunchSource } from './launch';

export interface StartupFacts {
  /** The program that was started (a Python, or the agentls.serverPath executable). */
  command: string;
  source: LaunchSource;
  spawnError?: { code?: string; message: string };
  exitCode?: number | null;
  signal?: string | null;
  stderrTail: string[];
  error?: string;
}

const WHAT: Record<LaunchSource, string> = {
  serverPath: 'Server command',
  python: 'Python interpreter',
  managed: "The server environment's Python",
};

const FIX: Record<LaunchSource, string> = {
  serverPath: 'Check "agentls.serverPath".',
  python: 'Set "agentls.python" to a Python that has agentls installed, or clear it to let the extension set up its own environment.',
  managed: 'Use "Agent: Restart server" to set the environment up again.',
};

export function describeStartupFailure(facts: StartupFacts): string {
  const { command, source } = facts;
  if (facts.spawnError) {
    if (facts.spawnError.code === 'ENOENT') {
      return `${WHAT[source]} not found: "${command}". ${FIX[source]}`;
    }
    if (facts.spawnError.code === 'EACCES') {
      return `${WHAT[source]} "${command}" cannot be run (permission denied). ${FIX[source]}`;
    }
    return `Could not start "${command}": ${facts.spawnError.message}`;
  }
  const missing = facts.stderrTail
    .map((line) => /(?:ModuleNotFoundError|ImportError): (.*)/.exec(line) ?? /: (No module named .*)/.exec(line))
    .find((m) => m !== null);
  if (missing) {
    return `The agentls server cannot be imported by "${command}" (${missing[1].trim()}). ${
      source === 'python' ? 'Install agentls into that environment, or clear "agentls.python" to let the extension set up its own.' : FIX[source]
    }`;
  }
  const lastLine = [...facts.stderrTail].reverse().find((l) => l.trim() !== '');
  if (facts.exitCode !== undefined && facts.exitCode !== null) {
    return `The agentls server exited with code ${facts.exitCode} while starting${lastLine ? `: ${lastLine.trim()}` : ''}.`;
  }
  if (facts.signal) {
    return `The agentls server was killed (${facts.signal}) while starting.`;
  }
  return `The agentls server did not start${facts.error ? `: ${facts.error}` : ''}${lastLine ? ` (${lastLine.trim()})` : ''}.`;
}
