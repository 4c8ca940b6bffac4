// Covers the isolation rule of the end-to-end files: one that asserts which shared servers `mem server stop` stopped
// takes a server home of its own (test/support/server-home.ts or MEMDIR_SERVER_HOME). In the run's shared home, other
// files' roots keep the servers in use, so such a stop stops nothing and the assertion fails only when files overlap.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const TEST = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** An assertion on the servers a stop stopped; `memd (this root)` is per root and needs no home of its own. */
const SHARED_STOP = /\.stopped\b[^\n]*\)\.(toContain|toEqual)\((?!'memd \(this root\)')/;
const OWN_HOME = /ownServerHome\(|MEMDIR_SERVER_HOME/;

function offenders(files: { name: string; text: string }[]): string[] {
  return files.filter((f) => SHARED_STOP.test(f.text) && !OWN_HOME.test(f.text)).map((f) => f.name);
}

describe('end-to-end isolation of the shared servers', () => {
  it('every test file that asserts which shared servers a stop stopped has a server home of its own', () => {
    const files = ['e2e', 'integration'].flatMap((dir) =>
      readdirSync(join(TEST, dir))
        .filter((n) => n.endsWith('.test.ts'))
        .map((n) => ({ name: `${dir}/${n}`, text: readFileSync(join(TEST, dir, n), 'utf8') })),
    );
    expect(files.length).toBeGreaterThan(20);
    expect(offenders(files)).toEqual([]);
  });

  it('the check sees such an assertion, and lets a per-root one or an own home through', () => {
    const stop = "expect(stop.json.stopped).toContain('mpnet');";
    expect(offenders([{ name: 'a', text: stop }])).toEqual(['a']);
    expect(offenders([{ name: 'b', text: "expect(stop.json.stopped.sort()).toEqual(['embedder']);" }])).toEqual(['b']);
    expect(offenders([{ name: 'c', text: `ownServerHome();\n${stop}` }])).toEqual([]);
    expect(offenders([{ name: 'd', text: "expect(stop.json.stopped).toContain('memd (this root)');" }])).toEqual([]);
  });
});
