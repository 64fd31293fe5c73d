/**
 * The "agentls server" log channel: the language client's own log, the server's stderr and
 * the extension's messages. Secrets registered with `addSecret` are masked in everything
 * the extension itself writes here.
 */
import * as vscode from 'vscode';

const secrets = new Set<string>();

export function addSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) {
    secrets.add(secret);
  }
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    out = out.split(secret).join('***');
  }
  return out;
}

let channel: vscode.LogOutputChannel | undefined;
/** Also copy the log to the extension host's console (the e2e runner shows it). */
const toConsole = process.env.AGENTLS_LOG_CONSOLE === '1';

const KEPT = 200_000;
let kept = '';

/** The end of what the extension wrote to the log (tests read it through the API). */
export function logText(): string {
  return kept;
}

function mirror(level: string, message: string): void {
  if (level !== 'server') {
    kept = `${kept}[${level}] ${message}\n`.slice(-KEPT);
  }
  if (toConsole) {
    console.log(`[agentls ${level}] ${message}`);
  }
}

export function createLog(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('agentls server', { log: true });
  return channel;
}

export function logInfo(message: string): void {
  channel?.info(redact(message));
  mirror('info', redact(message));
}

export function logWarn(message: string): void {
  channel?.warn(redact(message));
  mirror('warn', redact(message));
}

export function logError(message: string, error?: unknown): void {
  const detail = error instanceof Error ? `: ${error.message}` : error !== undefined ? `: ${String(error)}` : '';
  channel?.error(redact(`${message}${detail}`));
  mirror('error', redact(`${message}${detail}`));
}

/** The server's stderr lines also go to the console in e2e runs. */
export function logServerLine(line: string): void {
  mirror('server', redact(line));
}

export function showLog(): void {
  channel?.show(true);
}
