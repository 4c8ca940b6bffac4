# Check of memdir's Milvus Lite write patch (memdir_runtime/lite_write_patch.py), in process with the pinned
# Milvus Lite and a small memtable (so that a stream of inserts flushes several times): while inserts stream, flushed
# segments get no index and are still found (brute force); once the writes pause, every segment gets its index; a
# delete counts as a write; closing the collection does not wait for a pause. Args: a data dir, and "original" to run
# the same steps unpatched (the control: there, segments get indexes mid-stream). Run with python/ on PYTHONPATH.
# Prints one JSON line.
import json
import os
import random
import sys
import time

os.environ["MILVUS_LITE_MEMTABLE_MEMORY_LIMIT_BYTES"] = str(16 * 1024)  # read when milvus_lite.constants loads
import milvus_lite.engine.collection as coll
from milvus_lite import CollectionSchema, DataType, FieldSchema, MilvusLite

from memdir_runtime import lite_write_patch

data_dir = sys.argv[1]
WRAPPED = ("insert", "upsert", "delete", "_bg_compact_and_index")
original = tuple(getattr(coll.Collection, name) for name in WRAPPED)
if sys.argv[2:] != ["original"]:  # "original": the same steps on Milvus Lite as it is, the control
    lite_write_patch.apply()
applied = all(getattr(coll.Collection, name) is not then for name, then in zip(WRAPPED, original))

DIM = 8
schema = CollectionSchema(
    fields=[
        FieldSchema(name="chunk_id", dtype=DataType.VARCHAR, is_primary=True, max_length=64),
        FieldSchema(name="vector", dtype=DataType.FLOAT_VECTOR, dim=DIM),
    ],
)
db = MilvusLite(data_dir)
c = db.create_collection("writes", schema)
c.create_index("vector", {"index_type": "HNSW", "metric_type": "COSINE", "params": {"M": 8, "efConstruction": 32}})
c.load()


def vec(i):
    rng = random.Random(i)
    return [rng.uniform(-1, 1) for _ in range(DIM)]


def indexed():
    segs = c._segments_snapshot()
    return len(segs), sum(1 for s in segs if "vector" in s.indexes)


def found(i):
    hits = c.search(query_vectors=[vec(i)], anns_field="vector", metric_type="COSINE", top_k=10, output_fields=["chunk_id"])[0]
    return any(h["id"] == f"k{i:05d}" for h in hits)


# A stream: a batch every 0.1 s for ~3 s, inserts and upserts in turn, flushing (16 KB memtable), well inside the 2 s pause.
written = 0
indexed_during = 0  # the most segments seen with an index after any batch of the stream
for step in range(30):
    (c.upsert if step % 2 else c.insert)([{"chunk_id": f"k{written + j:05d}", "vector": vec(written + j)} for j in range(40)])
    written += 40
    time.sleep(0.1)
    indexed_during = max(indexed_during, indexed()[1])
during = indexed()
found_during = all(found(i) for i in (0, written // 2, written - 1))
# A delete keeps the deferral going too.
c.delete(pks=["k00000"])
time.sleep(1.0)
after_delete = indexed()
# The pause: the background task runs (within the 2 s pause and its 0.5 s polling, plus the builds themselves).
deadline = time.monotonic() + 30
while time.monotonic() < deadline and indexed()[1] < indexed()[0]:
    time.sleep(0.2)
after_pause = indexed()
found_after = all(found(i) for i in (1, written // 2, written - 1)) and not found(0)
# A write then close at once: close drains the deferred task without waiting for the pause.
c.insert([{"chunk_id": "last", "vector": vec(1)}])
c.flush()
t0 = time.monotonic()
db.close()
close_seconds = time.monotonic() - t0
print(
    json.dumps(
        {
            "applied": applied,
            "segmentsDuringStream": during[0],
            "indexedDuringStream": indexed_during,
            "foundDuringStream": found_during,
            "segmentsAfterDelete": after_delete[0],
            "indexedAfterDelete": after_delete[1],
            "segmentsAfterPause": after_pause[0],
            "indexedAfterPause": after_pause[1],
            "foundAfterPause": found_after,
            "closeSeconds": round(close_seconds, 2),
        }
    )
)
