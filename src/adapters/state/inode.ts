// The inode of a store's file: how a process holding a store open sees that another process replaced or removed it.
import { statSync } from 'node:fs';

/** The file's inode, -1 when there is none. */
export function inodeOf(file: string): number {
  try {
    return statSync(file).ino;
  } catch {
    return -1;
  }
}
