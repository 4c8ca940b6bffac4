"""Milvus Lite 3.2.2's background compaction and index builds wait for a pause in a collection's writes.

Milvus Lite flushes its memtable whenever it reaches 128 MB (~48,500 of memdir's rows) and then, in a background thread,
builds an HNSW graph (efConstruction 200) and a BM25 index for each new segment. A full index of 10,000 files (41,552
rows) never reaches that size, so all of its builds run after `mem reindex` has returned; one of 50,000 files (208,813
rows) reaches it four times, and each build of ~48,500 rows then ran beside the inserts that follow, on the same two
cores and under the same interpreter lock. The builds are the same work either way; deferred, they run once the writes
pause, as they already did at 10,000 (docs/decisions/milvus-lite-patches.md has the measurements).

Why it is safe: a flushed segment is searched by brute force until its index is built (Milvus Lite's own path for a
segment without an index), so answers are the same, and a flush itself (the rows' durability) is not deferred. Only the
background task waits: until neither a write nor the task's own start is less than QUIET seconds old, at most DEFER_MAX
s, and never once the collection closes (its close drains the task as before). Each replaced function is checked by
the SHA-256 of its source, and apply() refuses any Milvus Lite version but the one they come from.
"""

from memdir_runtime.milvus_lite_version import require_patched_version

_MEMDIR_MAINTENANCE_SHA256 = (
    "2687ec546f4530a203187bbe6092b171678dd94144f91c3bccd4b25ae8ffd43a",  # Collection.insert
    "3cea7e04acd70780151ee384436e7808c811598fa54d9bdcb0db6dacf2b40c0a",  # Collection.upsert (looks its keys up, then inserts)
    "72ae62d64209e80908d936f9da97672024cda069e9f1236157811d47f366922c",  # Collection.delete
    "ec39440d65d68ee2dd81687fa2b3c9f3aa2777f6c7f41bf417d58dbe62fe6c78",  # Collection._bg_compact_and_index
)
# Under the 3 s in a row that memdir's bench takes as a quiet server, so it never starts a step just before a build;
# over the gaps between two of a full index's inserts (the reply, the next request sent: memdir keeps one in flight).
_MEMDIR_QUIET_S = 2.0
# A stream of writes that never pauses still gets its segments indexed (brute force over many segments gets slow).
_MEMDIR_DEFER_MAX_S = 600.0


def _memdir_patch_quiet_maintenance():
    import hashlib
    import inspect
    import threading
    import time

    import milvus_lite.engine.collection as coll

    C = coll.Collection
    try:
        digests = tuple(hashlib.sha256(inspect.getsource(f).encode()).hexdigest() for f in (C.insert, C.upsert, C.delete, C._bg_compact_and_index))
    except (OSError, TypeError):
        digests = None
    if digests != _MEMDIR_MAINTENANCE_SHA256:
        print("memdir: background index builds left unpatched (another Milvus Lite version)", flush=True)
        return
    insert, upsert, delete, maintain = C.insert, C.upsert, C.delete, C._bg_compact_and_index
    counting = threading.Lock()

    def writing(write):
        # A write counts from its start: an insert spends most of its time before it stores anything (BM25's
        # tokenizer: ~1 s for 500 rows under load), and a write in progress is never a pause.
        def wrapped(self, *args, **kwargs):
            with counting:
                self._memdir_writes = getattr(self, "_memdir_writes", 0) + 1
            try:
                return write(self, *args, **kwargs)
            finally:
                with counting:
                    self._memdir_writes -= 1
                    self._memdir_written = time.monotonic()

        wrapped.__name__ = write.__name__
        wrapped.__doc__ = write.__doc__
        return wrapped

    def _bg_compact_and_index(self):
        since = time.monotonic()
        while not self._bg_closed:
            now = time.monotonic()
            # From the later of the last write's end and this task's start: the flush that submitted the task ran
            # inside an insert (~5 s for 48,500 rows under load), and the next insert had to wait for it.
            last = max(getattr(self, "_memdir_written", since), since)
            quiet = 0.0 if getattr(self, "_memdir_writes", 0) > 0 else now - last
            if quiet >= _MEMDIR_QUIET_S or now - since >= _MEMDIR_DEFER_MAX_S:
                break
            # Sleeping holds no lock: flushes, searches and writes go on; close() is seen within 0.5 s.
            time.sleep(min(_MEMDIR_QUIET_S - quiet, 0.5))
        maintain(self)

    C.insert = writing(insert)
    C.upsert = writing(upsert)
    C.delete = writing(delete)
    C._bg_compact_and_index = _bg_compact_and_index
    print("memdir: background compaction and index builds wait for a pause in writes", flush=True)


def apply():
    """Patches the running Milvus Lite (call before the server starts); refuses any other Milvus Lite version."""
    require_patched_version()
    _memdir_patch_quiet_maintenance()
