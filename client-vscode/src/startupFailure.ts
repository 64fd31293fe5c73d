/**
 * Turns what we know about a server that did not start (spawn error, exit code, the tail of
 * its stderr) into one sentence for the user. Pure, unit-tested.
 */

export interface StartupFacts {
  python: string;
  spawnError?: { code?: string; message: string };
  exitCode?: number | null;
  signal?: string | null;
  stderrTail: string[];
  error?: string;
}

export function describeStartupFailure(facts: StartupFacts): string {
  const { python } = facts;
  if (facts.spawnError) {
    if (facts.spawnError.code === 'ENOENT') {
      return `Python interpreter not found: "${python}". Set "agentls.python" to a Python that has agentls installed.`;
    }
    if (facts.spawnError.code === 'EACCES') {
      return `Python interpreter "${python}" cannot be run (permission denied). Check "agentls.python".`;
    }
    return `Could not start "${python}": ${facts.spawnError.message}`;
  }
  const missing = facts.stderrTail
    .map((line) => /(?:ModuleNotFoundError|ImportError): (.*)/.exec(line) ?? /: (No module named .*)/.exec(line))
    .find((m) => m !== null);
  if (missing) {
    return `The agentls server cannot be imported by "${python}" (${missing[1].trim()}). Install agentls into that environment or set "agentls.python".`;
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
