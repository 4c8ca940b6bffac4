// One build's memdir in a child process, for the scripts that compare two builds (search-same.mjs, search-first.mjs):
// the child imports that build's package entry, opens a root and answers search requests given as JSON lines on its
// stdin with JSON lines on its stdout (the results, the search's time, each index request's time).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The child's code: `repo`'s package entry, `root` opened with the environment it is given. */
function sideCode(repo, root) {
  return `
const lib = await import(${JSON.stringify(join(repo, 'dist/index.js'))});
const { createInterface } = await import('node:readline');
let requests = [];
// Each index search request's own time (the four of a search are sent together; each is timed from its send).
const wrapIndex = (index) => {
  const wrapped = Object.create(index);
  wrapped.search = async (req) => {
    const t = performance.now();
    try {
      return await index.search(req);
    } finally {
      requests.push({ what: req.mode + ' ' + (req.kind ?? 'unit'), ms: performance.now() - t });
    }
  };
  return wrapped;
};
const memory = await lib.openMemory(lib.loadConfig(process.env, { root: ${JSON.stringify(root)} }), { wrapIndex });
for await (const line of createInterface({ input: process.stdin })) {
  const input = JSON.parse(line);
  input.at = new Date(input.at);
  requests = [];
  const t = performance.now();
  const results = await memory.search(input);
  process.stdout.write(JSON.stringify({ ms: performance.now() - t, results, requests }) + '\\n');
}
await memory.close();
`;
}

/** Starts a side; `search(input)` resolves to { ms, results, requests }; `close()` ends the child. */
export function startSide(repo, root, env) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', sideCode(repo, root)], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  child.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the search side of ${repo} exited with ${code}`));
  });
  return {
    search: (input) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify(input)}\n`);
      }),
    close: () =>
      new Promise((resolve) => {
        child.on('exit', resolve);
        child.stdin.end();
      }),
  };
}
