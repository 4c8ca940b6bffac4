// WatchFiles on chokidar: reports Markdown files created, changed or removed under the memory root.
import { isAbsolute, relative, sep } from 'node:path';

import { watch } from 'chokidar';

import type { FileChange, FileWatcher } from '../../services/ports.js';
import { SKIPPED_DIRS, isMemoryFileName } from '../../memory/layout.js';

const toPosix = (p: string) => (sep === '/' ? p : p.split(sep).join('/'));

/** True for paths no sync would read: inside .git/.mem/node_modules, or a file that is not Markdown. */
export function ignoredPath(root: string, path: string, isFile: boolean | undefined): boolean {
  const rel = toPosix(isAbsolute(path) ? relative(root, path) : path);
  const segments = rel.split('/');
  if (segments.some((segment) => SKIPPED_DIRS.has(segment))) return true;
  // An editor's lock file (.#x.md) is a symlink: chokidar gives no file stats for it.
  if (segments.at(-1)!.startsWith('.#')) return true;
  // Folders must stay watched; an editor's temp or swap file (x.md~, .x.md.swp, x.md.tmp123) is not Markdown.
  return isFile === true && !isMemoryFileName(segments.at(-1)!);
}

export async function watchRoot(root: string, onChange: (change: FileChange) => void): Promise<FileWatcher> {
  const watcher = watch(root, {
    cwd: root,
    ignoreInitial: true,
    // Symlinked folders are never indexed (see FsMemoryFiles.scan), so never followed here either.
    followSymlinks: false,
    // An editor's atomic save (unlink then add within 100 ms) arrives as one change.
    atomic: true,
    ignored: (path, stats) => ignoredPath(root, path, stats?.isFile()),
  });
  const file = (path: string) => {
    if (!ignoredPath(root, path, true)) onChange({ kind: 'file', path: toPosix(path) });
  };
  watcher.on('add', file).on('change', file).on('unlink', file);
  // A removed or renamed folder: its files' events may not all arrive, so let a full sync decide.
  watcher.on('unlinkDir', (path) => onChange({ kind: 'rescan', reason: `folder ${toPosix(path)} removed` }));
  watcher.on('error', (err) => onChange({ kind: 'rescan', reason: `watcher error: ${err instanceof Error ? err.message : String(err)}` }));
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return { close: () => watcher.close() };
}
