/**
 * Which Python runs the server: the `agentls.python` setting, else the interpreter selected
 * in the Python extension (ms-python.python, best effort), else `python3`.
 */
import * as vscode from 'vscode';
import { logInfo, logWarn } from './logging';
import { expandPythonSetting } from './pythonSetting';

export interface Interpreter {
  command: string;
  source: 'setting' | 'python extension' | 'default';
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment?(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    Promise.resolve(promise),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms)),
  ]);
}

async function fromPythonExtension(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) {
    return undefined;
  }
  try {
    const api = ext.isActive ? ext.exports : await withTimeout(ext.activate(), 10_000);
    const envs = api?.environments;
    const active = envs?.getActiveEnvironmentPath?.(resource);
    if (!active || !envs?.resolveEnvironment) {
      return undefined;
    }
    const resolved = await withTimeout(envs.resolveEnvironment(active), 10_000);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch (error) {
    logWarn(`The Python extension did not give an interpreter: ${String(error)}`);
    return undefined;
  }
}

export async function resolveInterpreter(setting: string, folder: vscode.WorkspaceFolder | undefined): Promise<Interpreter> {
  if (setting) {
    return { command: expandPythonSetting(setting, folder?.uri.fsPath, process.env.HOME), source: 'setting' };
  }
  const fromExt = await fromPythonExtension(folder?.uri);
  if (fromExt) {
    return { command: fromExt, source: 'python extension' };
  }
  logInfo('No agentls.python setting and no Python extension interpreter: using python3');
  return { command: 'python3', source: 'default' };
}
