// Shared by the benchmark scripts: calls to the local embedding server and disk usage of a folder.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One request to the OpenAI-compatible /v1/embeddings endpoint of a server record ({ port, secret }); checks the vector count. */
export async function embed(server, texts, model = 'e5-passage') {
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.secret}` },
    body: JSON.stringify({ model, input: texts, encoding_format: 'float' }),
  });
  if (!res.ok) throw new Error(`embedding server answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  const body = await res.json();
  if (!Array.isArray(body.data) || body.data.length !== texts.length) throw new Error('embedding server returned the wrong number of vectors');
  return body;
}

/** Bytes and file count below `dir` (0 when it does not exist). */
export async function du(dir) {
  let bytes = 0;
  let files = 0;
  const walk = async (d) => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        bytes += (await stat(p)).size;
        files++;
      }
    }
  };
  await walk(dir);
  return { bytes, files };
}
