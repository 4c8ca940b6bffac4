# Differential check of memdir's Milvus Lite search patch (memdir_runtime/lite_search_patch.py): one in-process
# collection goes through random inserts, upserts (moving keys between partitions too), deletes with and without a
# flush, and compaction; after each step the same BM25 and dense searches run with Milvus Lite's own functions and
# with the patched ones, and must return the same hits, distances and fields
# (compared only while Milvus Lite's own answer is stable: its background compaction changes scores), the patch's
# partition-wide BM25 statistics turned off for that comparison; turned on, each BM25 hit's score must equal one
# recomputed from scratch over every stored row of the searched partitions. Args: a data dir, the number of steps, a
# random seed (run with python/ on PYTHONPATH). Prints one JSON line: steps and searches compared, first difference, the partition-wide
# checks; then the BM25 scorer alone on random indexes, and its index built from packed rows: how many compared and differed.
import json
import math
import random
import sys

import milvus_lite.engine.collection as coll
import milvus_lite.index.sparse_inverted as inv
import milvus_lite.search.executor_indexed as ex
from milvus_lite import CollectionSchema, DataType, FieldSchema, Function, FunctionType, MilvusLite

from memdir_runtime import lite_search_patch

data_dir, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
original = (coll.Collection._search_sparse, coll.execute_search_with_index, inv.SparseInvertedIndex.search, coll.project_record)
lite_search_patch.apply()
patch = vars(lite_search_patch)
patched = (coll.Collection._search_sparse, coll.execute_search_with_index, inv.SparseInvertedIndex.search, coll.project_record)
assert all(p is not o for p, o in zip(patched, original)), "the patch did not apply"


def use(fns, collection_wide=False):
    coll.Collection._search_sparse, coll.execute_search_with_index, inv.SparseInvertedIndex.search, coll.project_record = fns
    ex.execute_search_with_index = fns[1]
    # Partition-wide BM25 statistics change scores on purpose: the exact comparison is made without them.
    patch["_MEMDIR_GLOBAL_BM25"][0] = collection_wide


rng = random.Random(seed)
WORDS = "tea coffee bike red green morning work scooter ann bob paris rain snow book film song dog cat".split()
DIM = 8
schema = CollectionSchema(
    fields=[
        FieldSchema(name="chunk_id", dtype=DataType.VARCHAR, is_primary=True, max_length=64),
        FieldSchema(name="user", dtype=DataType.VARCHAR, max_length=64),
        FieldSchema(name="status", dtype=DataType.VARCHAR, max_length=16),
        FieldSchema(name="lexical", dtype=DataType.VARCHAR, max_length=1024, enable_analyzer=True),
        FieldSchema(name="sparse", dtype=DataType.SPARSE_FLOAT_VECTOR, is_function_output=True),
        FieldSchema(name="vector", dtype=DataType.FLOAT_VECTOR, dim=DIM),
    ],
    functions=[Function(name="bm25", function_type=FunctionType.BM25, input_field_names=["lexical"], output_field_names=["sparse"])],
)
PARTS = ["p0", "p1", "p2"]
db = MilvusLite(data_dir)
c = db.create_collection("diff", schema)
for p in PARTS:
    c.create_partition(p)
c.create_index("vector", {"index_type": "HNSW", "metric_type": "COSINE", "params": {"M": 8, "efConstruction": 64}})
c.create_index("sparse", {"index_type": "SPARSE_INVERTED_INDEX", "metric_type": "BM25"})
c.load()


def row(i):
    return {
        "chunk_id": f"k{i:04d}",
        "user": rng.choice(["ann", "bob"]),
        "status": rng.choice(["active", "active", "superseded"]),
        "lexical": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))),
        "vector": [rng.uniform(-1, 1) for _ in range(DIM)],
    }


KEYS = 300
compared = 0
unstable = 0
first_difference = None
wide_compared = 0
wide_first_difference = None


def check(step):
    global compared, first_difference, unstable
    for _ in range(4):
        parts = rng.choice([None, [rng.choice(PARTS)], PARTS[:2]])
        expr = rng.choice([None, 'status == "active"', 'user == "ann" and status == "active"'])
        k = rng.choice([5, 20, 80])
        fields = rng.choice([None, ["user", "status", "lexical"], ["lexical"], ["chunk_id", "vector"]])
        text = " ".join(rng.choice(WORDS) for _ in range(3))
        vec = [[rng.uniform(-1, 1) for _ in range(DIM)]]
        for name, args in (
            ("bm25", dict(query_vectors=[text], anns_field="sparse", metric_type="BM25")),
            ("dense", dict(query_vectors=vec, anns_field="vector", metric_type="COSINE")),
        ):
            ask = lambda fns, wide=False: (use(fns, wide), c.search(top_k=k, partition_names=parts, expr=expr, output_fields=fields, **args))[1]
            # Milvus Lite compacts and indexes in a background thread, which changes scores (per-segment BM25 statistics,
            # an HNSW index instead of brute force): its own answer is asked before and after the patched one, and a
            # comparison counts only when both of its answers agree.
            for _ in range(5):
                settle()
                before, mine, after = ask(original), ask(patched), ask(original)
                if before == after:
                    break
            else:
                unstable += 1
                continue
            compared += 1
            if mine != before and first_difference is None:
                first_difference = {"step": step, "search": name, "partitions": parts, "expr": expr, "k": k}
            if name == "bm25":
                settle()
                check_collection_wide(step, text, parts, ask(patched, True))


def reference_bm25(text, parts, pk):
    """A hit's BM25 score recomputed from scratch: the statistics of every stored row of the searched partitions (their
    segments' rows and the memtable's), the hit's newest row, the formula in double precision."""
    from milvus_lite.analyzer.sparse import bytes_to_sparse

    decode = lambda raw: bytes_to_sparse(raw) if isinstance(raw, bytes) else (raw or {})
    rows = []
    newest = (-1, None)
    for seg in c._read_snapshot()[0]:
        if parts is not None and seg.partition not in parts:
            continue
        column = seg.table.column("sparse").to_pylist()
        rows += [decode(r) for r in column]
        i = seg.pk_to_row.get(pk)
        if i is not None and int(seg.seqs[i]) > newest[0]:
            newest = (int(seg.seqs[i]), decode(column[i]))
    for key, seq, record in c._memtable.active_record_snapshots(partition_names=parts):
        rows.append(decode(record.get("sparse")))
        if key == pk and int(seq) > newest[0]:
            newest = (int(seq), decode(record.get("sparse")))
    n = len(rows)
    avgdl = sum(sum(r.values()) for r in rows) / n or 1.0
    doc = newest[1]
    dl = sum(doc.values())
    score = 0.0
    for term, weight in c._prepare_sparse_queries([text], "sparse")[0].items():
        if term not in doc:
            continue
        df = sum(term in r for r in rows)
        idf = math.log((n - df + 0.5) / (df + 0.5) + 1.0)
        tf = doc[term]
        score += idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * dl / avgdl)) * weight
    return score


def check_collection_wide(step, text, parts, hits):
    """Each BM25 hit's score under the partitions' statistics equals the from-scratch one, hits best first."""
    global wide_compared, wide_first_difference
    for hits_of_query in hits:
        scores = [abs(h["distance"]) for h in hits_of_query]
        wide_compared += 1
        expected = [reference_bm25(text, parts, h["id"]) for h in hits_of_query]
        close = all(abs(a - e) <= 1e-4 * max(1.0, e) for a, e in zip(scores, expected))
        if (not close or scores != sorted(scores, reverse=True)) and wide_first_difference is None:
            wide_first_difference = {"step": step, "text": text, "scores": scores, "expected": expected}


def settle():
    """Waits for the collection's background compaction and index builds queued so far."""
    c._bg_executor.submit(lambda: None).result()


for step in range(steps):
    op = rng.random()
    if op < 0.45:
        batch = [row(rng.randrange(KEYS)) for _ in range(rng.randint(1, 40))]
        batch = list({r["chunk_id"]: r for r in batch}.values())
        c.upsert(batch, partition_name=rng.choice(PARTS))
    elif op < 0.65:
        c.delete([f"k{rng.randrange(KEYS):04d}" for _ in range(rng.randint(1, 15))], partition_name=rng.choice([None, rng.choice(PARTS)]))
    elif op < 0.9:
        c.flush()
    else:
        c.flush()
        if hasattr(c, "compact"):
            c.compact()
    check(step)

use(patched)
db.close()

# The BM25 scorer alone, on random indexes built with and without a mask, many ties (small vocabularies, whole-number
# term counts), masked searches and every top k: the same ids and the same float32 distances.
import numpy as np
from milvus_lite.index.sparse_inverted import SparseInvertedIndex

scorer_compared = 0
scorer_differing = 0
for _trial in range(200):
    n = rng.randint(1, 300)
    vocabulary = rng.randint(3, 50)
    docs = []
    for _ in range(n):
        doc = {}
        for _ in range(rng.randint(0, 12)):
            term = rng.randrange(vocabulary)
            doc[term] = doc.get(term, 0.0) + float(rng.choice([1, 1, 1, 2, 3]))
        docs.append(doc)
    index = SparseInvertedIndex(k1=rng.choice([1.5, 1.2]), b=rng.choice([0.75, 0.3]))
    index.build(docs, valid_mask=None if rng.random() < 0.5 else np.array([rng.random() < 0.9 for _ in range(n)]))
    for _ in range(4):
        queries = [{rng.randrange(vocabulary + 5): rng.choice([1.0, 2.0, 0.5]) for _ in range(rng.randint(0, 6))} for _ in range(rng.randint(1, 3))]
        mask = None if rng.random() < 0.4 else np.array([rng.random() < 0.7 for _ in range(n)])
        k = rng.choice([1, 5, 40, 400])
        a = original[2](index, queries, k, valid_mask=mask)
        b = patched[2](index, queries, k, valid_mask=mask)
        scorer_compared += 1
        same = all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(a, b))
        scorer_differing += not same

# A segment's BM25 index built from its packed column by the patch against the original's build from decoded rows:
# the same statistics, terms in the same order, the same postings (ids and counts, as Python ints and floats).
import milvus_lite.engine.collection as patched_module
import pyarrow as pa
from milvus_lite.analyzer.sparse import bytes_to_sparse, sparse_to_bytes

builds_compared = 0
builds_differing = 0
for _trial in range(200):
    rows = [
        {rng.randrange(2**32 if rng.random() < 0.5 else 40): float(rng.choice([1, 2, 3])) for _ in range(rng.randint(0, 10))}
        for _ in range(rng.randint(1, 200))
    ]
    column = pa.chunked_array([pa.array([sparse_to_bytes(r) for r in rows], type=pa.binary())])
    mine = patched_module._memdir_fast_bm25(column, "BM25", {})
    theirs = SparseInvertedIndex()
    theirs.build([bytes_to_sparse(r) for r in column.to_pylist()])
    builds_compared += 1
    pairs = lambda index: [(t, [(type(i), i, type(f), f) for i, f in p]) for t, p in index._posting_lists.items()]
    same = (
        mine is not None
        and (mine.doc_count, mine.avgdl, mine._df) == (theirs.doc_count, theirs.avgdl, theirs._df)
        and np.array_equal(mine._doc_lengths, theirs._doc_lengths)
        and mine._doc_lengths.dtype == theirs._doc_lengths.dtype
        and pairs(mine) == pairs(theirs)
    )
    builds_differing += not same

print(
    json.dumps(
        {
            "steps": steps,
            "compared": compared,
            "unstable": unstable,
            "firstDifference": first_difference,
            "wideCompared": wide_compared,
            "wideFirstDifference": wide_first_difference,
            "scorerCompared": scorer_compared,
            "scorerDiffering": scorer_differing,
            "buildsCompared": builds_compared,
            "buildsDiffering": builds_differing,
        }
    )
)
