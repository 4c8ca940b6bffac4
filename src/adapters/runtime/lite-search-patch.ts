// One exact speed-up of Milvus Lite 3.2.2's BM25 search, applied by memdir's launcher: the newest sequence number
// of every primary key of every segment, which its sparse search rebuilds in Python on every call, is kept per set
// of segments and reused while that set is the same.
//
// Why: at 50,000 memory files (208,813 rows) that pass is ~76 % of a BM25 search (docs/benchmarks.md §20) and a
// `mem search` makes two. Why it is exact: a segment is an immutable Parquet file (Milvus Lite reloads nothing it
// has loaded; a flush or compaction makes new segment objects), so the map of a given tuple of segment objects
// never changes; the memtable's newer versions are still merged on top at every call, as before. The patch
// rewrites one block of `Collection._search_sparse` found by its exact text: any other Milvus Lite version (the
// block changed) is left as it is and the server says so in its log. Drop it once Milvus Lite caches the map itself.

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
`;
