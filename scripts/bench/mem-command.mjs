// How a benchmark starts `mem` as a user does: the bin/mem launcher npm links as `mem` (a fast path then starts
// without the host's extra CA bundle), told to run this Node; a checkout built before it existed runs node bin/mem.js.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The program and its leading arguments that run `mem` from this checkout, and what they add to the environment. */
export function memCommand(checkout) {
  const launcher = join(checkout, 'bin', 'mem');
  return existsSync(launcher)
    ? { file: launcher, pre: [], env: { MEMDIR_NODE: process.execPath } }
    : { file: process.execPath, pre: [join(checkout, 'bin', 'mem.js')], env: {} };
}

const SAFE = /^[A-Za-z0-9_/.:=@%+,-]+$/;
const quote = (s) => (SAFE.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** `mem hook <argv>` as that checkout's `mem integrate` writes it into an agent's settings, for `sh -c` to run. */
export function hookShellCommand(checkout, argv) {
  const launcher = join(checkout, 'bin', 'mem');
  const head = existsSync(launcher)
    ? [`MEMDIR_NODE=${quote(process.execPath)}`, quote(launcher)]
    : [quote(process.execPath), quote(join(checkout, 'bin', 'mem.js'))];
  return [...head, ...['hook', ...argv].map(quote)].join(' ');
}
