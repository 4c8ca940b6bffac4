# Differential check of memdir's Milvus Lite search patch (src/adapters/runtime/lite-search-patch.ts): one in-process
# collection goes through random inserts, upserts (moving keys between partitions too), deletes with and without a
# flush, and compaction; after each step the same BM25 and dense searches run with Milvus Lite's own functions and
# with the patched ones, and must return the same hits, distances and fields
# (compared only while Milvus Lite's own answer is stable: its background compaction changes scores). Args: a file holding the patch's Python,
# a data dir, the number of steps, a random seed. Prints one JSON line: steps and searches compared, first difference.
import json, random, sys

import milvus_lite.engine.collection as coll
import milvus_lite.search.executor_indexed as ex
from milvus_lite import CollectionSchema, DataType, FieldSchema, Function, FunctionType, MilvusLite

patch_file, data_dir, steps, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
original = (coll.Collection._search_sparse, coll.execute_search_with_index)
exec(compile(open(patch_file).read(), "lite-search-patch", "exec"), {"__name__": "memdir_patch"})
patched = (coll.Collection._search_sparse, coll.execute_search_with_index)
assert patched[0] is not original[0] and patched[1] is not original[1], "the patch did not apply"

def use(fns):
    coll.Collection._search_sparse, coll.execute_search_with_index = fns
    ex.execute_search_with_index = fns[1]

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

def check(step):
    global compared, first_difference
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
            ask = lambda fns: (use(fns), c.search(top_k=k, partition_names=parts, expr=expr, output_fields=fields, **args))[1]
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
print(json.dumps({"steps": steps, "compared": compared, "unstable": unstable, "firstDifference": first_difference}))
