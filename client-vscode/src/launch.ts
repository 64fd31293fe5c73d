/**
 * Which command starts the server, from the settings. Pure, unit-tested.
 *
 * 1. `agentls.serverPath`: a server executable (e.g. `agentls`), run as `<it> --stdio`;
 * 2. `agentls.python`: an interpreter that has agentls installed, run as
 *    `<it> -P -m agentls --stdio`;
 * 3. neither: the extension's own environment (managedEnv.ts), whose Python is run the same way.
 *
 * Every launch line keeps the workspace (the server's cwd) off `sys.path`: the console script
 * and `-P` both do, so a user's own `server.py`, `agent/` or `indexer.py` is never imported.
 */
import { expandPathSetting } from './pathSetting';

export type LaunchSource = 'serverPath' | 'python' | 'managed';

export interface Launch {
  command: string;
  args: string[];
  source: LaunchSource;
}

export type LaunchPlan = { kind: 'ready'; launch: Launch } | { kind: 'managed' };

/** `-P`: the cwd (the workspace) is not put on sys.path, so nothing there can shadow agentls. */
export const PYTHON_SERVER_ARGS: readonly string[] = ['-P', '-m', 'agentls', '--stdio'];

export function pythonLaunch(python: string, source: 'python' | 'managed'): Launch {
  return { command: python, args: [...PYTHON_SERVER_ARGS], source };
}

export interface LaunchSettings {
  serverPath: string;
  python: string;
}

export function planLaunch(settings: LaunchSettings, folder: string | undefined, home: string | undefined): LaunchPlan {
  if (settings.serverPath) {
    return {
      kind: 'ready',
      launch: { command: expandPathSetting(settings.serverPath, folder, home), args: ['--stdio'], source: 'serverPath' },
    };
  }
  if (settings.python) {
    return { kind: 'ready', launch: pythonLaunch(expandPathSetting(settings.python, folder, home), 'python') };
  }
  return { kind: 'managed' };
}

export function describeLaunch(launch: Launch): string {
  return [launch.command, ...launch.args].join(' ');
}
