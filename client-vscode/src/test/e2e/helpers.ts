/** Helpers of the end-to-end tests (they run inside VS Code's extension host). */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { Methods, type PingResult } from '../../generated/protocol';
import { e2eLog } from '../e2eLog';

export const EXTENSION_ID = 'agentls.agentls';
export const MODEL = 'e2e';

export async function getApi(): Promise<AgentlsApi> {
  const ext = vscode.extensions.getExtension<AgentlsApi>(EXTENSION_ID);
  if (!ext) {
    throw new Error(`${EXTENSION_ID} is not loaded`);
  }
  return ext.isActive ? ext.exports : ext.activate();
}

/**
 * How long the first start of the server may take: without agentls.python
 * (AGENTLS_E2E_MANAGED=1) the extension first sets up its own environment with pip. Whichever
 * suite runs first waits for it.
 */
export const FIRST_START_MS = 280_000;

/** How long the model worker may take to import litellm: tens of seconds on a busy machine. */
const WORKER_READY_MS = 240_000;

/** The extension's API once its server runs. */
export async function runningApi(): Promise<AgentlsApi> {
  const api = await getApi();
  await waitFor(() => api.server.current, 'the server to run', FIRST_START_MS);
  return api;
}

/** The workspace-level values a suite of ./ may leave behind when it fails half-way. */
const OTHER_SETTINGS = ['files.trimTrailingWhitespace', 'editor.formatOnSave', 'files.autoSave'];

/**
 * The `before` of every suite of ./ that talks to the server. The suites run in any order
 * (AGENTLS_E2E_ORDER=reverse in index.ts), so none may count on another having run before it,
 * or on what another left behind when it failed: this ends any run still going (and any
 * refactor preview it waits on), keeps any change still under review, takes back every
 * workspace setting of agentls the suites change, starts a new palette conversation (the
 * palette's runs otherwise continue the one of the suite before), and waits until the
 * server runs with the user's settings and its model worker has loaded litellm, so that no
 * test pays for the first start. Files, the model's script and the panel are each suite's
 * own business.
 */
export async function setUpSuite(context: Mocha.Context): Promise<AgentlsApi> {
  context.timeout(FIRST_START_MS + WORKER_READY_MS + 120_000);
  const api = await runningApi();
  if (api.runs.activeRunIds.length > 0) {
    await uiDone({ refactor: 'discard', ifOpen: true });
    for (const runId of api.runs.activeRunIds) {
      await api.runs.cancel(runId);
    }
    await waitFor(() => api.runs.activeRunIds.length === 0, 'the runs left behind to end', 30_000);
  }
  await api.review.decideAll('keep');
  const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
  const properties = (extension.packageJSON as { contributes: { configuration: { properties: Record<string, unknown> } } }).contributes.configuration.properties;
  for (const full of [...Object.keys(properties), ...OTHER_SETTINGS]) {
    const dot = full.indexOf('.');
    const config = vscode.workspace.getConfiguration(full.slice(0, dot));
    const key = full.slice(dot + 1);
    if (config.inspect(key)?.workspaceValue !== undefined) {
      console.log(`set-up: ${full} was left at ${JSON.stringify(config.inspect(key)?.workspaceValue)}; taking it back`);
      await config.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
  }
  await vscode.commands.executeCommand('agentls.newSession');
  await api.server.settled();
  const client = await waitFor(() => api.server.current, 'the server to run with the user settings', 60_000);
  // The worker starts only at a sign of a run (agent/prepare) or at the first run, and ends
  // when idle: a suite that has not shown the panel yet says it is about to run.
  await client.sendNotification(Methods.prepare, {});
  await waitFor(async () => (await client.sendRequest<PingResult>(Methods.ping, {})).llmReady, 'the model worker to load litellm', WORKER_READY_MS);
  return api;
}

/** Ask the playwright runner for UI work (see e2e/runner.mjs). */
export function ui(request: Record<string, unknown>): void {
  e2eLog(`@@E2E ${JSON.stringify(request)}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(100);
  }
}

function envUrl(name: string): string {
  const url = process.env[name];
  if (!url) {
    throw new Error(`${name} is not set (run the tests with scripts/vscode_e2e.sh)`);
  }
  return url;
}

function modelUrl(): string {
  return envUrl('AGENTLS_E2E_MODEL_URL');
}

/** The second scripted model server of the Workspace Trust session: the repository's. */
export function repoModelUrl(): string {
  return envUrl('AGENTLS_E2E_REPO_MODEL_URL');
}

/** Replace the scripted model's turns (turn format: agent/llm/scripted_server.py). */
export async function script(turns: unknown[], model = MODEL, url = modelUrl()): Promise<void> {
  const reset = await fetch(`${url}/_reset`, { method: 'POST', body: '{}' });
  if (!reset.ok) {
    throw new Error(`scripted server /_reset: ${reset.status}`);
  }
  const response = await fetch(`${url}/_script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, turns }),
  });
  if (!response.ok) {
    throw new Error(`scripted server /_script: ${response.status} ${await response.text()}`);
  }
}

export interface RecordedRequest {
  path: string;
  auth_present: boolean;
  auth_sha256: string | null;
  body: { model?: string; messages?: { role: string; content: unknown }[]; tools?: { function?: { name?: string } }[] };
}

export async function modelRequests(url = modelUrl()): Promise<RecordedRequest[]> {
  const response = await fetch(`${url}/_requests`);
  const data = (await response.json()) as RecordedRequest[] | { requests: RecordedRequest[] };
  return Array.isArray(data) ? data : data.requests;
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    throw new Error('no workspace folder');
  }
  return folder.uri.fsPath;
}

export function onDisk(relative: string): string {
  return fs.readFileSync(path.join(workspaceRoot(), relative), 'utf8');
}

/** Write a file of the workspace (a suite's `before`: the files its runs edit, as it expects them). */
export function writeFile(relative: string, text: string): vscode.Uri {
  const file = path.join(workspaceRoot(), relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return vscode.Uri.file(file);
}

/** Set (or with undefined, remove) a workspace-level setting over the e2e user settings. */
export async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('agentls').update(key, value, vscode.ConfigurationTarget.Workspace);
}

/** Switch `agentls.review.mode` (undefined: the default) and wait for the server it restarts. */
export async function reviewMode(api: AgentlsApi, mode: 'inline' | 'refactorPreview' | undefined): Promise<void> {
  const before = api.server.current;
  await setSetting('review.mode', mode);
  await waitFor(() => api.server.current !== undefined && api.server.current !== before && api.server.current, 'the server to restart', 60_000);
}

let acks = 0;

/**
 * Ask the runner for UI work and wait until it is done (it writes an ack file then). Resolves
 * to what the runner read for the test, if anything (e.g. the text of a dialog).
 */
export async function uiDone(request: Record<string, unknown>, timeoutMs = 60_000): Promise<string> {
  return uiStarted(request).done(timeoutMs);
}

/** Ask the runner for UI work that the test then brings about (a dialog it opens); `done` waits for it. */
export function uiStarted(request: Record<string, unknown>): { done(timeoutMs?: number): Promise<string> } {
  acks += 1;
  const name = `a${acks}`;
  const file = path.join(workspaceRoot(), `.e2e-ack-${name}`);
  ui({ ...request, ack: name });
  return {
    async done(timeoutMs = 60_000) {
      await waitFor(() => fs.existsSync(file), `the runner to finish ${JSON.stringify(request).slice(0, 200)}`, timeoutMs);
      return fs.readFileSync(file, 'utf8');
    },
  };
}
