// Two exact speed-ups of Milvus Lite 3.2.2's searches, applied by memdir's launcher: the newest sequence number of
// every primary key of every segment, which its searches rebuild in Python on every call, is kept per set of
// segments and reused while that set is the same — for BM25 (the whole collection's segments) and for dense
// searches (the segments of the searched partitions).
//
// Why: at 50,000 memory files (208,813 rows) that pass is ~76 % of a BM25 search (docs/benchmarks.md §20) and a
// `mem search` makes two; in a dense search it covers only the user's partition (20,000-42,000 rows there), 12-44 ms
// per request under load (§24), and a search makes two of those too. Why it is exact: a segment is an immutable
// Parquet file (Milvus Lite reloads nothing it has loaded; a flush or compaction makes new segment objects), so the
// map of a given tuple of segment objects never changes; the memtable's newer versions are still merged on top at
// every call, as before. Each patch rewrites one block found by its exact text: any other Milvus Lite version (the
// block changed) is left as it is and the server says so in its log. Drop them once Milvus Lite caches the map itself.
/** Python code run by the Milvus Lite launcher before the server starts. */
export const LITE_SEARCH_PATCH = `
def _memdir_patch_sparse_dedup():
    import inspect, textwrap
    import milvus_lite.engine.collection as coll
    # The block as it stands in the method's source once dedented (its body 4 spaces in; 8 in the file).
    block = (
        "    global_pk_seq: Dict[Any, int] = {}\\n"
        "    for seg in seg_snapshot:\\n"
        "        # Resolve collection-wide versions before partition pruning, just\\n"
        "        # as for MemTable rows. Moving a pk must not reveal its old version\\n"
        "        # in the source partition after the new version is flushed.\\n"
        "        for i, pk in enumerate(seg.pks):\\n"
        "            seq = int(seg.seqs[i])\\n"
        "            if pk not in global_pk_seq or seq > global_pk_seq[pk]:\\n"
        "                global_pk_seq[pk] = seq\\n"
    )
    try:
        source = textwrap.dedent(inspect.getsource(coll.Collection._search_sparse))
    except (OSError, TypeError):
        print("memdir: BM25 search left unpatched (no source)", flush=True)
        return
    if source.count(block) != 1:
        print("memdir: BM25 search left unpatched (another Milvus Lite version)", flush=True)
        return
    source = source.replace(block, "    global_pk_seq: Dict[Any, int] = _memdir_segments_pk_seq(self, seg_snapshot)\\n")

    def segments_pk_seq(collection, segments):
        cached = getattr(collection, "_memdir_pk_seq", None)
        if cached is not None and len(cached[0]) == len(segments) and all(a is b for a, b in zip(cached[0], segments)):
            return dict(cached[1])
        newest = {}
        for seg in segments:
            for i, pk in enumerate(seg.pks):
                seq = int(seg.seqs[i])
                if pk not in newest or seq > newest[pk]:
                    newest[pk] = seq
        # The segments themselves are kept with the map: their identity is the key (an id() could be reused).
        collection._memdir_pk_seq = (tuple(segments), newest)
        return dict(newest)

    coll._memdir_segments_pk_seq = segments_pk_seq
    scope = {}
    exec(compile(source, coll.__file__, "exec"), coll.__dict__, scope)
    coll.Collection._search_sparse = scope["_search_sparse"]
    print("memdir: BM25 search reuses its per-segment version map", flush=True)

_memdir_patch_sparse_dedup()

def _memdir_patch_dense_dedup():
    import __future__, inspect, os
    import milvus_lite.engine.collection as coll
    import milvus_lite.search.executor_indexed as ex
    block = (
        "    for seg in in_scope_segments:\\n"
        "        _update_max_seqs(list(seg.pks), seg.seqs)\\n"
    )
    try:
        source = inspect.getsource(ex.execute_search_with_index)
    except (OSError, TypeError):
        print("memdir: dense search left unpatched (no source)", flush=True)
        return
    if source.count(block) != 1 or coll.execute_search_with_index is not ex.execute_search_with_index:
        print("memdir: dense search left unpatched (another Milvus Lite version)", flush=True)
        return
    source = source.replace(block, "    global_max_seqs.update(_memdir_partition_pk_seq(in_scope_segments))\\n")
    # One map per set of partition folders searched (a user's partition): a newer set of the same folders replaces
    # it, so at most one superseded set of segments is kept alive per folder, as the BM25 map keeps one per collection.
    maps = {}

    def partition_pk_seq(segments):
        segments = tuple(segments)
        key = tuple(sorted({os.path.dirname(s.file_path) for s in segments}))
        cached = maps.get(key)
        if cached is not None and len(cached[0]) == len(segments) and all(a is b for a, b in zip(cached[0], segments)):
            return cached[1]
        newest = {}
        for seg in segments:
            seqs = seg.seqs.tolist() if hasattr(seg.seqs, "tolist") else list(seg.seqs)
            for pk, seq in zip(list(seg.pks), seqs):
                seq = int(seq)
                known = newest.get(pk)
                if known is None or seq > known:
                    newest[pk] = seq
        maps[key] = (segments, newest)
        return newest

    ex._memdir_partition_pk_seq = partition_pk_seq
    scope = {}
    # The module's own future import (annotations as strings) holds for the rewritten function too.
    exec(compile(source, ex.__file__, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True), ex.__dict__, scope)
    ex.execute_search_with_index = scope["execute_search_with_index"]
    coll.execute_search_with_index = scope["execute_search_with_index"]
    print("memdir: dense search reuses its per-partition version map", flush=True)

_memdir_patch_dense_dedup()
`;
