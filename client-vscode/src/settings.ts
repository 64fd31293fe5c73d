/**
 * The extension's settings (`agentls.*`) and how they travel to the server.
 *
 * Pure: no runtime dependency on the VS Code API, so the mapping is unit-tested with
 * `node --test`. Server-wide settings go as initializationOptions and in
 * `workspace/didChangeConfiguration`, in the `.agentls.yaml` shape; per-run settings go in
 * the params of each `agent/run`.
 */

import { ConfirmModeValues, SelfEvalModeValues, type ConfirmMode, type SelfEvalMode } from './protocol';

export const SECTION = 'agentls';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface AgentSettings {
  serverPath: string;
  python: string;
  model: string;
  apiBase: string;
  apiKeyEnv: string;
  confirmMode: ConfirmMode;
  maxSteps: number;
  selfEval: SelfEvalMode;
  agent: string;
  logLevel: LogLevel;
  saveAfterEdit: boolean;
  /** Problems after edits on or off (null: the server's config decides). */
  diagnostics: boolean | null;
  /** Longest wait for an edit's problems, in ms (null: the server's config decides). */
  diagnosticsWaitMs: number | null;
}

export const DEFAULT_SETTINGS: Readonly<AgentSettings> = Object.freeze({
  serverPath: '',
  python: '',
  model: '',
  apiBase: '',
  apiKeyEnv: 'LITELLM_API_KEY',
  confirmMode: 'confirm-sensitive',
  maxSteps: 20,
  selfEval: 'off',
  agent: 'build',
  logLevel: 'info',
  saveAfterEdit: true,
  diagnostics: null,
  diagnosticsWaitMs: null,
});

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads one key of the `agentls` section (e.g. `WorkspaceConfiguration.get`). */
export type SettingGetter = (key: string) => unknown;

/** A setting whose value was unusable and was replaced by its default. */
export interface SettingProblem {
  key: string;
  message: string;
}

export interface ReadSettings {
  settings: AgentSettings;
  problems: SettingProblem[];
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

/**
 * Read every setting through `get`, falling back to the default (and reporting a problem
 * that names the key) for a value of the wrong type or outside its enum.
 */
export function readSettings(get: SettingGetter): ReadSettings {
  const problems: SettingProblem[] = [];
  const settings: AgentSettings = { ...DEFAULT_SETTINGS };
  const bad = (key: string, value: unknown, expected: string): void => {
    problems.push({
      key: `${SECTION}.${key}`,
      message: `${SECTION}.${key}: ${JSON.stringify(value)} is not ${expected}; using the default`,
    });
  };

  const str = (key: 'serverPath' | 'python' | 'model' | 'apiBase' | 'agent'): void => {
    const value = get(key);
    if (value === undefined || value === null) {
      return;
    }
    if (typeof value !== 'string') {
      bad(key, value, 'a string');
      return;
    }
    settings[key] = value.trim();
  };
  str('serverPath');
  str('python');
  str('model');
  str('apiBase');
  str('agent');
  if (settings.agent === '') {
    settings.agent = DEFAULT_SETTINGS.agent;
  }

  const keyEnv = get('apiKeyEnv');
  if (keyEnv !== undefined && keyEnv !== null && keyEnv !== '') {
    if (typeof keyEnv === 'string' && ENV_NAME.test(keyEnv.trim())) {
      settings.apiKeyEnv = keyEnv.trim();
    } else {
      bad('apiKeyEnv', keyEnv, 'an environment variable name');
    }
  }

  // The other settings: a value of the right type (in its enum) is used, anything else
  // but unset is reported.
  const checked = <K extends keyof AgentSettings>(
    key: K,
    valid: (value: unknown) => value is AgentSettings[K],
    expected: string,
  ): void => {
    const value = get(key);
    if (value === undefined) {
      return;
    }
    if (valid(value)) {
      settings[key] = value;
    } else {
      bad(key, value, expected);
    }
  };
  const choice = <K extends 'confirmMode' | 'selfEval' | 'logLevel'>(
    key: K,
    allowed: readonly AgentSettings[K][],
  ): void => checked(key, (value) => oneOf(value, allowed), `one of ${allowed.join(', ')}`);
  choice('confirmMode', ConfirmModeValues);
  choice('selfEval', SelfEvalModeValues);
  choice('logLevel', LOG_LEVELS);
  checked(
    'maxSteps',
    (value): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1,
    'a positive integer',
  );
  checked('saveAfterEdit', (value): value is boolean => typeof value === 'boolean', 'true or false');
  checked('diagnostics', (value): value is boolean | null => value === null || typeof value === 'boolean', 'true, false or null');
  checked(
    'diagnosticsWaitMs',
    (value): value is number | null => value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 60000),
    'a number of milliseconds from 0 to 60000, or null',
  );
  return { settings, problems };
}

/** The server-wide configuration in the `.agentls.yaml` shape. Empty strings are left out
 * so that they do not override `.agentls.yaml` or the server's defaults. */
export interface ServerConfig {
  llm: { model?: string; api_base?: string; api_key_env: string };
  logging: { level: LogLevel };
  diagnostics?: { enabled?: boolean; wait_ms?: number };
}

export function serverConfig(settings: AgentSettings): ServerConfig {
  const llm: ServerConfig['llm'] = { api_key_env: settings.apiKeyEnv };
  if (settings.model) {
    llm.model = settings.model;
  }
  if (settings.apiBase) {
    llm.api_base = settings.apiBase;
  }
  const config: ServerConfig = { llm, logging: { level: settings.logLevel } };
  // Unset (null) leaves the server's own config (.agentls.yaml) in force.
  const diagnostics: NonNullable<ServerConfig['diagnostics']> = {};
  if (settings.diagnostics !== null) {
    diagnostics.enabled = settings.diagnostics;
  }
  if (settings.diagnosticsWaitMs !== null) {
    diagnostics.wait_ms = settings.diagnosticsWaitMs;
  }
  if (Object.keys(diagnostics).length > 0) {
    config.diagnostics = diagnostics;
  }
  return config;
}

/** The key of `initializationOptions` beside the config that says whether VS Code trusts
 * the folder (the server pops it: it is not a config key). */
export const TRUST_OPTION = 'workspaceTrusted';

/** `initializationOptions`: the server-wide config, and VS Code's Workspace Trust verdict. */
export function initializationOptions(settings: AgentSettings, trusted: boolean): ServerConfig & { [TRUST_OPTION]: boolean } {
  return { ...serverConfig(settings), [TRUST_OPTION]: trusted };
}

/** Params of `workspace/didChangeConfiguration`. */
export function didChangeConfigurationParams(settings: AgentSettings): {
  settings: { agentls: ServerConfig };
} {
  return { settings: { agentls: serverConfig(settings) } };
}

/** The per-run part of `agent/run` params. */
export interface RunOptions {
  agent: string;
  confirmMode: ConfirmMode;
  maxSteps: number;
  selfEval: SelfEvalMode;
}

export function runOptions(settings: AgentSettings, agent?: string): RunOptions {
  return {
    agent: agent || settings.agent,
    confirmMode: settings.confirmMode,
    maxSteps: settings.maxSteps,
    selfEval: settings.selfEval,
  };
}

/**
 * Settings a workspace's `.vscode/settings.json` could turn against the user: the program
 * that runs (serverPath, python), where the user's key and code go (apiBase, apiKeyEnv,
 * model), how much the agent may do or spend (confirmMode, maxSteps, selfEval, and
 * diagnostics and diagnosticsWaitMs: how long every edit waits for problems) and which
 * agent runs (agent: a repository's own agent could otherwise be made the one every run
 * uses). In Restricted Mode VS Code reads them from the user's settings only (package.json
 * `capabilities.untrustedWorkspaces.restrictedConfigurations`, checked against this list).
 */
export const RESTRICTED_KEYS: readonly (keyof AgentSettings)[] = [
  'serverPath',
  'python',
  'apiBase',
  'apiKeyEnv',
  'model',
  'confirmMode',
  'maxSteps',
  'selfEval',
  'diagnostics',
  'diagnosticsWaitMs',
  'agent',
];

/** Keys whose change needs a new server process (launch line, environment). */
export const RESTART_KEYS: readonly (keyof AgentSettings)[] = ['serverPath', 'python', 'apiKeyEnv'];
/** The log line written each time changed settings go to the running server (tests wait on it). */
export const SETTINGS_SENT = 'Sent the changed settings to the server (workspace/didChangeConfiguration)';
/** Keys the server gets through `workspace/didChangeConfiguration`. */
export const SERVER_KEYS: readonly (keyof AgentSettings)[] = ['model', 'apiBase', 'apiKeyEnv', 'logLevel', 'diagnostics', 'diagnosticsWaitMs'];

/** What a change of settings asks of a running server. */
export type SettingsAction = 'restart' | 'send' | 'none';

/**
 * Compares the settings the server has (`sent`: those it was started with, or last sent)
 * with the settings now: a changed launch key restarts it, a changed server key is sent.
 * Comparing values, not change events, makes it safe to ask twice (a configuration change
 * and a trust grant can report the same change) and catches values VS Code changed without
 * the user editing them (restricted settings once the folder is trusted).
 */
export function settingsAction(sent: AgentSettings | undefined, now: AgentSettings): SettingsAction {
  if (!sent) {
    return 'none'; // no server yet: it will read them when it starts
  }
  if (RESTART_KEYS.some((key) => sent[key] !== now[key])) {
    return 'restart';
  }
  if (SERVER_KEYS.some((key) => sent[key] !== now[key])) {
    return 'send';
  }
  return 'none';
}
