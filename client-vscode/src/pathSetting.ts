/** A path setting (`agentls.python`, `agentls.serverPath`) as a command. Pure, unit-tested. */
import * as path from 'path';

/** Expand `${workspaceFolder}` and `~`, and make a relative path absolute against the workspace. */
export function expandPathSetting(value: string, folder: string | undefined, home: string | undefined): string {
  let out = value.replace(/\$\{workspaceFolder\}/g, folder ?? '');
  if (home && (out === '~' || out.startsWith('~/'))) {
    out = path.join(home, out.slice(1));
  }
  if (folder && out.includes('/') && !path.isAbsolute(out)) {
    out = path.join(folder, out);
  }
  return out;
}
