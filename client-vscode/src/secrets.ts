/**
 * The model API key: from VS Code's SecretStorage ("Agent: Set API key") or else from the
 * environment VS Code was started with. It is only ever put in the server process's
 * environment, under the name of `agentls.apiKeyEnv`; never in settings, never logged.
 */
import * as vscode from 'vscode';
import { addSecret } from './logging';

const PREFIX = 'agentls.apiKey:';

export class ApiKeys {
  constructor(private readonly storage: vscode.SecretStorage) {}

  /** Fires when a stored key changes (the server must be restarted to see it). */
  get onDidChange(): vscode.Event<vscode.SecretStorageChangeEvent> {
    return this.storage.onDidChange;
  }

  isKeyOfOurs(key: string): boolean {
    return key.startsWith(PREFIX);
  }

  async get(envName: string): Promise<string | undefined> {
    const stored = await this.storage.get(PREFIX + envName);
    const value = stored || process.env[envName] || undefined;
    addSecret(value);
    return value;
  }

  async set(envName: string, value: string): Promise<void> {
    if (value === '') {
      await this.storage.delete(PREFIX + envName);
    } else {
      addSecret(value);
      await this.storage.store(PREFIX + envName, value);
    }
  }
}

/** The environment of the server process: VS Code's, plus the key under `envName`. */
export function serverEnvironment(
  base: NodeJS.ProcessEnv,
  envName: string,
  key: string | undefined,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' };
  if (key) {
    env[envName] = key;
  }
  return env;
}
