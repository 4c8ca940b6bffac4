# Runs memsearch's own code in-process for scripts/bench/memsearch.mjs (`npm run bench:memsearch`): its chunker, warm
# searches, index stats, LoCoMo. Not run on its own.
#
# Run with the python of the benchmark's memsearch venv (never memdir's runtime). Every command
# prints one JSON object on its last stdout line; progress goes to stderr.
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path


def log(msg: str) -> None:
    print(f"[memsearch-driver] {msg}", file=sys.stderr, flush=True)


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def open_memsearch(a, paths=None):
    from memsearch.core import MemSearch

    # The same settings the CLI gets from its flags in memsearch.mjs (provider defaults otherwise).
    return MemSearch(
        paths or [],
        embedding_provider="openai",
        embedding_model=a.model,
        embedding_base_url=a.base_url,
        embedding_api_key=os.environ["OPENAI_API_KEY"],  # memdir's embedding server checks its secret
        milvus_uri=a.uri,
        collection=a.collection,
    )


def cmd_chunks(a) -> None:
    """What memsearch embeds for a folder: its scanner, chunker and pre-embedding clean-up, per file."""
    from memsearch.chunker import chunk_markdown, clean_content_for_embedding
    from memsearch.io import read_utf8_text_replace
    from memsearch.scanner import scan_paths

    files = []
    for f in scan_paths([a.corpus]):
        text = read_utf8_text_replace(f.path)
        chunks = chunk_markdown(text, source=str(f.path))
        files.append({"path": str(f.path), "texts": [clean_content_for_embedding(c.content) for c in chunks],
                      "firstChunkHasFrontMatter": bool(chunks) and chunks[0].content.startswith("---")})
    Path(a.out).write_text(json.dumps({"files": files}, ensure_ascii=False), encoding="utf-8")
    n = sum(len(f["texts"]) for f in files)
    emit({"files": len(files), "chunks": n, "avgChars": round(sum(len(t) for f in files for t in f["texts"]) / max(1, n)),
          "filesWithFrontMatterInFirstChunk": sum(1 for f in files if f["firstChunkHasFrontMatter"])})


def cmd_inspect(a) -> None:
    """Rows, distinct sources and vector dimension of the collection (read-only)."""
    from memsearch.store import MilvusStore

    store = MilvusStore(uri=a.uri, collection=a.collection, dimension=None)
    try:
        rows = store.query()
        info = store._connected_client().describe_collection(a.collection)
        dim = next((int(f.get("params", {}).get("dim")) for f in info.get("fields", []) if f.get("name") == "embedding"), None)
        emit({"rows": len(rows), "sources": len({r["source"] for r in rows}), "dimension": dim})
    finally:
        store.close()


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


async def _search(a) -> dict:
    spec = json.loads(Path(a.queries).read_text(encoding="utf-8"))
    ms = open_memsearch(a)
    out: dict = {"full": [], "embedQuery": [], "storeSearch": [], "hits": [], "scopeViolations": 0}
    try:
        for q in spec["warmup"]:
            await ms.search(q["query"], top_k=a.k, source_prefix=q["prefix"])
        for q in spec["queries"]:
            t0 = time.perf_counter()
            results = await ms.search(q["query"], top_k=a.k, source_prefix=q["prefix"])
            out["full"].append(_ms(t0))
            out["hits"].append(len(results))
            out["scopeViolations"] += sum(1 for r in results if not r["source"].startswith(q["prefix"].rstrip("/") + "/"))
            # The same work piece by piece (what MemSearch.search does inside).
            t0 = time.perf_counter()
            vec = (await ms._embedder.embed([q["query"]]))[0]
            out["embedQuery"].append(_ms(t0))
            prefix = str(Path(q["prefix"]).expanduser().resolve()).replace("\\", "\\\\").replace('"', '\\"')
            t0 = time.perf_counter()
            ms.store.search(vec, query_text=q["query"], top_k=a.k, filter_expr=f'source like "{prefix}%"')
            out["storeSearch"].append(_ms(t0))
    finally:
        ms.close()
    return out


def cmd_search(a) -> None:
    """Warm searches in one process (memsearch's embedded Milvus Lite and HTTP client stay up)."""
    emit(asyncio.run(_search(a)))


async def _locomo(a) -> dict:
    spec = json.loads(Path(a.questions).read_text(encoding="utf-8"))
    ms = open_memsearch(a, [a.docs])
    try:
        log(f"indexing {a.docs}")
        t0 = time.perf_counter()
        report = await ms.index_with_report()
        index_s = (time.perf_counter() - t0)
        log(f"indexed {report.indexed_chunks} chunks in {index_s:.0f} s; {len(spec['questions'])} questions")
        outcomes = []
        for i, q in enumerate(spec["questions"]):
            t0 = time.perf_counter()
            results = await ms.search(q["question"], top_k=a.k, source_prefix=q["prefix"])
            latency = _ms(t0)
            outcomes.append({"headings": [r.get("heading", "") for r in results], "latencyMs": latency,
                             "outOfScope": sum(1 for r in results if not r["source"].startswith(q["prefix"].rstrip("/") + "/"))})
            if i % 100 == 99:
                log(f"  {i + 1} questions")
        return {"index": {"chunks": report.indexed_chunks, "files": report.total_files, "failed": len(report.failed_files),
                          "seconds": round(index_s, 2)}, "outcomes": outcomes}
    finally:
        ms.close()


def cmd_locomo(a) -> None:
    """Indexes LoCoMo session files with memsearch and answers every question in its conversation's folder."""
    emit(asyncio.run(_locomo(a)))


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("chunks")
    c.add_argument("--corpus", required=True)
    c.add_argument("--out", required=True)
    c.set_defaults(fn=cmd_chunks)
    for name, fn in (("inspect", cmd_inspect), ("search", cmd_search), ("locomo", cmd_locomo)):
        s = sub.add_parser(name)
        s.add_argument("--uri", required=True)
        s.add_argument("--collection", required=True)
        s.add_argument("--base-url")
        s.add_argument("--model")
        s.add_argument("--k", type=int, default=8)
        s.add_argument("--queries")
        s.add_argument("--questions")
        s.add_argument("--docs")
        s.set_defaults(fn=fn)
    a = p.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
