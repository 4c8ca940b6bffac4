# The collection-wide pass Milvus Lite 3.2.2 makes on every BM25 search (engine/collection.py, _search_sparse: the
# newest sequence number of every primary key of every segment, before partitions are pruned), replayed on the rows
# of a real collection's segment files, and the cost of reading one hit's columns (every column, as its search does).
#
# Usage (the runtime's Python has pyarrow and numpy):
#   ~/.cache/memdir/runtime-*/bin/python scripts/bench/lite-dedup-pass.py <servers-home>/milvus/collections/<collection>
import glob
import statistics
import sys
import time

import numpy as np
import pyarrow.parquet as pq

files = sorted(glob.glob(f"{sys.argv[1]}/partitions/*/data/*.parquet"))
keys = [pq.read_table(f, columns=["chunk_id", "_seq"]) for f in files]
pks = [t.column("chunk_id").to_pylist() for t in keys]
seqs = [np.asarray(t.column("_seq").to_pylist(), dtype=np.uint64) for t in keys]
rows = sum(len(p) for p in pks)
first = pq.read_table(files[0])


def dedup_pass():
    newest = {}
    for seg_pks, seg_seqs in zip(pks, seqs):
        for i, pk in enumerate(seg_pks):
            seq = int(seg_seqs[i])
            if pk not in newest or seq > newest[pk]:
                newest[pk] = seq


def read_hits(count):
    table = first
    for i in range(count):
        row = (i * 37) % len(table)
        {name: table.column(name)[row].as_py() for name in table.column_names if name not in ("_seq", "_partition")}


def median_ms(fn, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


print(f"{rows} rows in {len(files)} segment files")
print(f"dedup pass over every row: median {median_ms(dedup_pass)} ms")
print(f"reading 40 hits: median {median_ms(lambda: read_hits(40))} ms")
