// Benchmark of forgetting on Milvus Lite: what `mem forget` costs now that it purges the deleted text from index
// storage by rebuilding the collection from the vector cache, and what `mem gc` costs to purge a hand deletion.
//
// Usage: node scripts/bench/forget.mjs [--files 1000] [--forgets 3] [--json] [--keep]   (or `npm run bench:forget -- --files 200`)
// Vectors are synthetic (random unit vectors put in the cache, as `npm run bench -- --synthetic-vectors`): no step
// measured here embeds anything, so the model's speed does not enter the figures.
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { generateCorpus } from './corpus.mjs';
import { defaultsEnv, memJson } from './local.mjs';
import { machine, round, stats } from './stats.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    forgets: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const FORGETS = Number(args.forgets);
const childEnv = { ...defaultsEnv(), MEM_DAEMON: 'off' };
const log = (msg) => process.stderr.write(`[bench:forget] ${msg}\n`);

/** Runs `mem --root <root> --json ...args`; returns the parsed result and the wall time in ms. */
const mem = (root, cliArgs) => memJson(root, cliArgs, childEnv);

async function main() {
  const root = await mkdtemp(join(os.tmpdir(), 'memdir-bench-forget-'));
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/forget.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
  };
  try {
    log(`generating ${FILES} files in ${root}`);
    const { files } = await generateCorpus(root, FILES);
    const chunked = await chunkTexts(root, files);
    out.corpus = { files: FILES, chunks: chunked.reduce((n, f) => n + f.records.length, 0) };
    await fillCacheWithRandomVectors(root, chunked);
    await mem(root, ['setup']);
    const full = await mem(root, ['reindex']);
    out.fullIndex = { seconds: round(full.ms / 1000, 2), embedded: full.result.embedded };

    const rebuild = await mem(root, ['reindex', '--rebuild']);
    out.rebuild = { seconds: round(rebuild.ms / 1000, 2), embedded: rebuild.result.embedded, upserted: rebuild.result.upserted };

    const forgets = [];
    for (let i = 0; i < FORGETS; i++) {
      const victim = files[(i * 7919) % files.length];
      const id = victim.path.split('/').pop().replace(/\.md$/, '');
      const r = await mem(root, ['forget', id, '--reason', 'benchmark']);
      if (r.result.verified.stateHits.length > 0) throw new Error(`forget left text in ${r.result.verified.stateHits.join(', ')}`);
      forgets.push(r.ms);
      files.splice(files.indexOf(victim), 1);
    }
    out.forget = { ...stats(forgets), index: 'rebuilt' };

    const victim = files[11];
    await unlink(join(root, victim.path));
    const sync = await mem(root, ['reindex']);
    const gc = await mem(root, ['gc']);
    const gcClean = await mem(root, ['gc']);
    out.handDeletion = {
      reindexSeconds: round(sync.ms / 1000, 2),
      gcSeconds: round(gc.ms / 1000, 2),
      gcIndex: gc.result.purge.index,
      gcNothingPendingSeconds: round(gcClean.ms / 1000, 2),
    };
  } finally {
    await mem(root, ['server', 'stop']).catch(() => undefined);
    if (!args.keep) await rm(root, { recursive: true, force: true });
  }
  out.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    const f = out.forget;
    process.stdout.write(
      [
        `${out.date} — ${out.corpus.files} files, ${out.corpus.chunks} chunks; ${out.machine.cpuModel} × ${out.machine.cpuCount}, load ${out.loadAverageAtStart.join(' ')}`,
        `full index (synthetic vectors): ${out.fullIndex.seconds} s`,
        `reindex --rebuild: ${out.rebuild.seconds} s (${out.rebuild.embedded} embedded)`,
        `mem forget <id> (incl. rebuild): p50 ${round(f.p50 / 1000, 2)} s, max ${round(f.max / 1000, 2)} s over ${f.n}`,
        `hand deletion: reindex ${out.handDeletion.reindexSeconds} s, then mem gc ${out.handDeletion.gcSeconds} s (${out.handDeletion.gcIndex}); gc with nothing pending ${out.handDeletion.gcNothingPendingSeconds} s`,
      ].join('\n') + '\n',
    );
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
