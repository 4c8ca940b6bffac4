// Dumps LoCoMo's candidate pools with every per-signal score, for offline ranking analysis (issue 12, §1.13).
// A measuring tool over memdir's built package (run `npm run build` first); its output stays out of git.
// For each scored question of the ingest layout, it runs the read path as `mem bench locomo` does (k = 10's
// 50 candidates per signal) and records (a) each signal's list over the whole user scope (1,000 deep: every
// unit and window of a conversation), (b) the pipeline's whole ranked pool for the default and for the best
// second-field row. Usage (the second field configured as in §1.11):
//   MEM_SECOND_MODEL=mpnet MEM_SECOND_MODEL_URL=http://127.0.0.1:PORT/v1 nice -n 10 node scripts/bench/locomo-pools.mjs \
//     --data ../shared/data/locomo-dev.json --work-dir /tmp/locomo-NAME --out /tmp/NAME-pools.json [--rows 'default,second windows']
// --rows names the ablation rows whose pools are recorded (default: `default-second` and `second 0.4 dense 0.33`,
// as in 1.13); each result keeps its relevance, score, recency and the raw signals the pipeline reports.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { loadConfig, openMemory } from 'memdir';
import { ABLATIONS, conversationLogs, loadLocomo, scoredQuestions, turnsOfLines, userOf } from 'memdir/bench';

const { values } = parseArgs({
  options: { data: { type: 'string' }, 'work-dir': { type: 'string' }, out: { type: 'string' }, limit: { type: 'string' }, rows: { type: 'string' } },
});
const root = resolve(values['work-dir']);
const SHALLOW = 50; // what the bench's k = 10 asks of every signal (5·k)
const DEEP = 1000;

let current = null; // the question being dumped: its deep lists, filled by the wrapped index
const records = {};
const wrapIndex = (inner) =>
  new Proxy(inner, {
    get(target, prop) {
      if (prop !== 'search') {
        const v = target[prop];
        return typeof v === 'function' ? v.bind(target) : v;
      }
      return async (request) => {
        const key = `${request.mode}/${request.kind ?? 'unit'}`;
        const hits = await target.search({ ...request, limit: DEEP });
        if (current && !current.sig[key]) {
          current.sig[key] = hits.map((h) => [h.record.chunkId, h.score]);
          for (const h of hits) {
            const r = h.record;
            if (!records[r.chunkId])
              records[r.chunkId] = { path: r.path, kind: r.kind, lines: [r.lineStart, r.lineEnd], text: r.kind === 'unit' ? r.content : undefined };
          }
        }
        return hits.slice(0, Math.min(request.limit, SHALLOW));
      };
    },
  });

const config = { ...loadConfig(process.env), root, git: false };
const memory = await openMemory(config, { onLog: (m) => process.stderr.write(`${m}\n`), wrapIndex });
try {
  const conversations = await loadLocomo(resolve(values.data));
  const logs = new Map();
  for (const conv of conversations) for (const log of conversationLogs(conv, `${userOf(conv)}.log`)) logs.set(log.path, { conv: conv.id, log });
  const report = await memory.reindex();
  process.stderr.write(`reindex: ${JSON.stringify({ files: report.files, chunks: report.chunks, embedded: report.embedded })}\n`);
  const questions = [];
  const rows = values.rows
    ? values.rows.split(',').map((name) => {
        if (!ABLATIONS[name]) throw new Error(`no ablation row named ${name}`);
        return [name, ABLATIONS[name]];
      })
    : [
        ['default', ABLATIONS['default-second']],
        ['second', ABLATIONS['second 0.4 dense 0.33']],
      ];
  const max = values.limit ? Number(values.limit) : Infinity;
  for (const conv of conversations) {
    const last = Date.parse(conv.sessions[conv.sessions.length - 1].date);
    const at = new Date(last + 86_400_000);
    for (const q of scoredQuestions(conv).slice(0, max)) {
      current = { conv: conv.id, question: q.question, category: q.category, evidence: q.evidence.map((e) => `${conv.id}/${e}`), sig: {}, runs: {} };
      for (const [name, settings] of rows) {
        const results = await memory.search({ query: q.question, user: `${userOf(conv)}.log`, k: 200, unit: 'chunk', track: false, at, ...settings });
        current.runs[name] = results.map((r) => [
          `${r.path}#${r.lines[0]}-${r.lines[1]}`,
          r.scores.relevance,
          r.score,
          r.scores.recency,
          r.scores.window ?? 0,
          r.scores.bm25 ?? null,
          r.scores.dense ?? null,
          r.scores.second ?? null,
        ]);
        for (const r of results) {
          const key = `${r.path}#${r.lines[0]}-${r.lines[1]}`;
          if (!records[key]) records[key] = { path: r.path, kind: 'unit', lines: r.lines, text: r.content };
        }
      }
      questions.push(current);
      if (questions.length % 50 === 0) process.stderr.write(`${questions.length} questions\n`);
    }
  }
  // Each record's turns, conversation-qualified, as rankedTurnsOf counts them.
  for (const r of Object.values(records)) {
    const file = logs.get(r.path);
    r.turns = file ? turnsOfLines(file.log.turns, r.lines[0], r.lines[1]).map((t) => `${file.conv}/${t}`) : [];
  }
  await writeFile(values.out, JSON.stringify({ records, questions }));
  process.stderr.write(`wrote ${questions.length} questions, ${Object.keys(records).length} records to ${values.out}\n`);
} finally {
  await memory.close();
}
