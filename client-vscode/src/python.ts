/**
 * The server's launch line (launch.ts decides from the settings) and, when no setting names
 * one, the extension's own environment (managedEnv.ts), set up with progress in a
 * notification. Its base Python: the interpreter selected in the Python extension
 * (ms-python.python, best effort) when it is recent enough, else `python3` and friends.
 */
import * as vscode from 'vscode';
import { logInfo, logWarn } from './logging';
import { planLaunch, pythonLaunch, type Launch, type LaunchSettings } from './launch';
import type { ManagedEnvironment } from './managedEnv';

/** Tried in this order after the Python extension's interpreter. */
const BASE_PYTHONS = process.platform === 'win32' ? ['python', 'python3'] : ['python3', 'python3.13', 'python3.12', 'python3.11', 'python'];

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

export async function resolveLaunch(
  settings: LaunchSettings,
  folder: vscode.WorkspaceFolder | undefined,
  managed: ManagedEnvironment,
): Promise<Launch> {
  const plan = planLaunch(settings, folder?.uri.fsPath, process.env.HOME);
  if (plan.kind === 'ready') {
    return plan.launch;
  }
  const ready = await managed.readyPython();
  if (ready) {
    return pythonLaunch(ready, 'managed');
  }
  const fromExt = await fromPythonExtension(folder?.uri);
  const bases = [...(fromExt ? [fromExt] : []), ...BASE_PYTHONS];
  logInfo(`Setting up the server environment (base Python candidates: ${bases.join(', ')})`);
  const python = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'agentls: setting up the server environment' },
    (progress) => managed.ensure(bases, (message) => progress.report({ message })),
  );
  return pythonLaunch(python, 'managed');
}
