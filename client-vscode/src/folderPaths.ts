/**
 * Where a path lies among the workspace folders: the folder holding a file, a path the server
 * names (relative to the run's folder) on disk. Pure, unit-tested (`sep` chooses POSIX or
 * Windows paths).
 */
import * as path from 'path';
import type { FolderRef } from './folders';

function pathsFor(sep: string): typeof path.posix {
  return sep === '/' ? path.posix : path.win32;
}

/** Whether `file` is `folder` or lies inside it (not merely starts with the same letters). */
export function isInside(folder: string, file: string, sep: string = path.sep): boolean {
  const paths = pathsFor(sep);
  const relative = paths.relative(folder, file);
  return relative !== '..' && !relative.startsWith(`..${paths.sep}`) && !paths.isAbsolute(relative);
}

/** The folder holding `file` (the innermost one, folders may nest), if any. */
export function folderOfPath(folders: readonly FolderRef[], file: string, sep: string = path.sep): FolderRef | undefined {
  let best: FolderRef | undefined;
  for (const folder of folders) {
    if (isInside(folder.path, file, sep) && (!best || folder.path.length > best.path.length)) {
      best = folder;
    }
  }
  return best;
}

/**
 * A path the server or the panel names (an edited file, an instruction file), on disk:
 * relative paths are the run's folder's; an absolute path must lie in one of the folders.
 * Undefined when it lies outside every folder (the panel opens nothing outside the workspace).
 */
export function resolveInFolders(folders: readonly FolderRef[], base: FolderRef | undefined, file: string, sep: string = path.sep): string | undefined {
  const paths = pathsFor(sep);
  if (paths.isAbsolute(file)) {
    return folderOfPath(folders, file, sep) ? paths.normalize(file) : undefined;
  }
  if (!base) {
    return undefined;
  }
  const joined = paths.join(base.path, file);
  return isInside(base.path, joined, sep) ? joined : undefined;
}

