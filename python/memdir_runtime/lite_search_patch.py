"""Exact speed-ups of Milvus Lite 3.2.2's searches, and BM25 scored with its partitions' statistics.

Milvus Lite's searches rebuild in Python, on every call, the newest sequence number of every primary key of the searched
segments (BM25: the whole collection's; dense: the searched partitions'), then walk every row of the searched
partitions in Python to mark the rows that hold a key's newest, undeleted version. Both are kept per set of segments and
reused while that set is the same; per call only the rows of the keys that the memtable or a tombstone touches are
judged again, by the original test. At 50,000 memory files (208,813 rows) the collection-wide pass was about three
quarters of a BM25 search, and the per-row walk covered the user's partition (20,000-42,000 rows) in each of a search's
four requests (docs/decisions/milvus-lite-patches.md has the measurements).

Both also read each winning hit's fields one pyarrow scalar at a time (a read and a conversion per field and hit: 800
for memdir's 16 fields of 50 hits, a third of the server's time for such a search); one take of the shown columns per
segment, converted together, gives the same records.

Why it is exact: a segment is an immutable Parquet file (Milvus Lite reloads nothing it has loaded; a flush or
compaction makes new segment objects), so the map and the newest rows of a given tuple of segment objects never change;
what can change between calls (the memtable's rows and deletes, the tombstones) is looked at on every call, and a row of
a key it names is judged by the original code's own test. A segment that holds a key twice, or a call with more such
keys than rows, takes the original loop. Each rewrite finds its blocks by their exact text, and apply() refuses any
Milvus Lite version but the one these blocks come from.

One change that is not exact, on purpose: BM25 scores with the statistics of the searched partitions (rows, average
length, each term's document frequency, summed over their segments and memtable rows) instead of each segment's own,
as Milvus Lite's own TODO asks. Each write's flush makes a segment of its own; with its own statistics a just-added
memory's terms had an IDF of ~0.29 instead of ~3 and it ranked below older memories on its own words until a rebuild.
The searched partitions (a user's bucket), not the whole collection as Milvus standalone does: a bulk index writes one
segment per partition, so these are the statistics Milvus Lite already scored with there, and LoCoMo's recall stays as
it was (collection-wide statistics lost 0.008 of turn R@10). A segment's statistics are computed once (it is
immutable), their sum kept per set of segments; with one segment the scores are unchanged.
"""

import numpy as _memdir_np

from memdir_runtime.milvus_lite_version import require_patched_version


class _MemdirVersions:
    """The newest sequence number of every key of a tuple of segments, and per segment the rows that hold it."""

    def __init__(self, segments):
        self.segments = tuple(segments)
        newest = {}
        for seg in self.segments:
            seqs = seg.seqs.tolist() if hasattr(seg.seqs, "tolist") else list(seg.seqs)
            for pk, seq in zip(list(seg.pks), seqs):
                seq = int(seq)
                known = newest.get(pk)
                if known is None or seq > known:
                    newest[pk] = seq
        self.newest = newest
        # By the identity of a segment's seqs array (what the dense executor hands its mask builder): the segment and,
        # once built, its rows holding their key's newest version (None: a key is twice in the segment).
        self._rows = {id(seg.seqs): (seg, None, False) for seg in self.segments}

    def same(self, segments):
        # The segment objects themselves are compared (kept alive here): an id() could be reused.
        return len(segments) == len(self.segments) and all(a is b for a, b in zip(segments, self.segments))

    def _newest_rows(self, seqs):
        entry = self._rows.get(id(seqs))
        if entry is None or entry[0].seqs is not seqs:
            return None, None
        seg, rows, built = entry
        if not built:
            if len(seg.pk_to_row) == len(seg.pks):
                newest = self.newest
                rows = _memdir_np.fromiter((newest.get(pk) == int(seq) for pk, seq in zip(seg.pks, seg.seqs.tolist())), dtype=bool, count=len(seg.pks))
            self._rows[id(seqs)] = (seg, rows, True)
        return seg, rows

    def mask(self, seqs, row_valid, touched):
        """A segment's valid rows: its newest rows, and each row of a key in `touched` judged by row_valid; None: walk them all."""
        seg, rows = self._newest_rows(seqs)
        if rows is None or sum(len(keys) for keys in touched) > len(rows):
            return None
        mask = rows.copy()
        where = seg.pk_to_row
        for keys in touched:
            for pk in keys:
                i = where.get(pk)
                if i is not None:
                    mask[i] = row_valid(seg, pk, int(seqs[i]))
        return mask


def _memdir_indent(block):
    return "".join("    " + line if line.strip() else line for line in block.splitlines(True))


def _memdir_hit_columns(names, schema, plan):
    """The columns a BM25 hit is read from: those its projection shows, and every column that is no schema field."""
    if plan.requested_fields is None:
        return names
    shown = set(plan.response_schema_fields)
    fields = {f.name for f in schema.fields}
    return [name for name in names if name in shown or name not in fields]


def _memdir_hit_records(won, is_memtable_ref, schema, plan):
    """The records of a BM25 query's winning segment hits, by (table, row): each table's shown columns taken together
    for its rows, instead of a scalar read and conversion per column and hit."""
    by_table = {}
    for _, _, source in won:
        if not is_memtable_ref(source):
            tbl, row_i = source
            by_table.setdefault(id(tbl), (tbl, []))[1].append(row_i)
    records = {}
    for key, (tbl, rows) in by_table.items():
        names = [n for n in _memdir_hit_columns(tbl.column_names, schema, plan) if n not in ("_seq", "_partition")]
        for row_i, record in zip(rows, tbl.select(names).take(rows).to_pylist()):
            records[(key, row_i)] = record
    return records


def _memdir_rows_to_dicts(seg, row_idxs, output_fields, pk_field):
    """Segment.row_to_dict of several rows of one segment, without the schema fields a dense hit does not show (its
    vectors above all): one take of the shown columns, converted together, instead of a scalar read and conversion per
    field and row (800 of them for memdir's 16 fields of 50 hits: a third of the server's time for such a search)."""
    if output_fields is None or "*" in output_fields:
        return [seg.row_to_dict(i) for i in row_idxs]
    keep = set(output_fields)
    keep.add(pk_field)
    names = [n for n in seg.table.schema.names if not (n == "_seq" or (n not in keep and n != "$meta" and not n.startswith("_")))]
    rows = seg.table.select(names).take(row_idxs).to_pylist()
    # As Segment.row_to_dict: the dynamic fields kept in $meta (JSON text or a dict) are unpacked into the record.
    for result in rows if "$meta" in names else ():
        meta_raw = result["$meta"]
        if isinstance(meta_raw, str):
            import json

            try:
                meta = json.loads(meta_raw)
                if isinstance(meta, dict):
                    result.update(meta)
            except (json.JSONDecodeError, ValueError):
                pass
        elif isinstance(meta_raw, dict):
            result.update(meta_raw)
    return rows


def _memdir_materialize(won, segments, one, output_fields, pk_field):
    """The records of a query's winning hits, in their order: each segment's rows taken together, memtable rows one by one."""
    records = [None] * len(won)
    by_segment = {}
    for k, (_, source_idx, local_id) in enumerate(won):
        if source_idx < len(segments):
            by_segment.setdefault(source_idx, []).append(k)
        else:
            records[k] = one(source_idx, local_id)
    for source_idx, ks in by_segment.items():
        rows = _memdir_rows_to_dicts(segments[source_idx], [won[k][2] for k in ks], output_fields, pk_field)
        for k, row in zip(ks, rows):
            records[k] = row
    return records


class _MemdirPosting:
    """One term's posting list held as arrays; reads as the original's list of (local_id, tf) pairs."""

    __slots__ = ("ids", "tfs")

    def __init__(self, ids, tfs):
        self.ids = ids
        self.tfs = tfs

    def __len__(self):
        return len(self.ids)

    def __iter__(self):
        return iter(zip(self.ids.tolist(), self.tfs.tolist()))

    def __getitem__(self, i):
        return list(self)[i]


def _memdir_packed_pairs(column):
    """A packed sparse column's rows and (term, count) pairs, as views of its buffers; None when the data is not the
    plain case (nulls, a sliced array, a row that is no whole number of pairs, a term not after the one before it in
    its row, counts that are not whole numbers)."""
    import pyarrow as pa

    np = _memdir_np
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if not (pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)) or arr.null_count or arr.offset:
        return None
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64 if pa.types.is_large_binary(arr.type) else np.int32)[: n + 1].astype(np.int64)
    sizes = np.diff(offsets)
    if n == 0 or np.any(sizes % 8):
        return None
    data = arr.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]] if data is not None else np.zeros(0, dtype=np.uint8)
    pairs = raw.view(np.dtype([("term", "<u4"), ("tf", "<f4")]))
    terms, tfs = pairs["term"], pairs["tf"]
    # Sums of whole numbers are exact in any order: only then do these sums equal the original's left-to-right ones.
    if len(pairs) and (np.any(tfs != np.floor(tfs)) or np.any(tfs < 0) or tfs.sum(dtype=np.float64) >= 2.0**52):
        return None
    if len(pairs) > 1:
        # Within a row, each term after the one before (so none twice); a row's first pair follows anything.
        rising = terms[1:] > terms[:-1]
        firsts = (offsets[1:-1] - offsets[0]) // 8
        rising[firsts[(firsts > 0) & (firsts < len(pairs))] - 1] = True
        if not rising.all():
            return None
    return n, sizes // 8, terms, tfs


def _memdir_unpack_sparse(column):
    """A packed sparse column as arrays (rows, and per stored pair its row, term and count); None: not the plain case."""
    np = _memdir_np
    packed = _memdir_packed_pairs(column)
    if packed is None:
        return None
    n, lengths, terms, tfs = packed
    docs = np.repeat(np.arange(n, dtype=np.int64), lengths)
    return n, docs, terms.astype(np.int64), tfs.astype(np.float64)


def _memdir_build_bm25(column, index):
    """Builds a segment's BM25 index from its packed sparse column in numpy; None when the data is not the plain case,
    which the original then builds."""
    np = _memdir_np
    unpacked = _memdir_unpack_sparse(column)
    if unpacked is None:
        return None
    n, docs, terms, tfs = unpacked
    doc_lengths = np.bincount(docs, weights=tfs, minlength=n)
    index.doc_count = n
    total = float(doc_lengths.sum())
    index.avgdl = total / n
    index._doc_lengths = doc_lengths.astype(np.float32)
    order = np.argsort(terms, kind="stable")
    sorted_terms = terms[order]
    starts = np.flatnonzero(np.r_[True, sorted_terms[1:] != sorted_terms[:-1]]) if len(terms) else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(terms)]
    ids = docs[order]
    weights = tfs[order]
    # Terms in the order the original meets them (by row, then within a row): its dict's order.
    first_seen = order[starts]
    postings = {}
    df = {}
    for s in np.argsort(first_seen, kind="stable").tolist():
        term = int(sorted_terms[starts[s]])
        postings[term] = _MemdirPosting(ids[starts[s] : ends[s]], weights[starts[s] : ends[s]])
        df[term] = int(ends[s] - starts[s])
    index._posting_lists = postings
    index._df = df
    return index


_MEMDIR_FAST_BUILD = []


def _memdir_fast_bm25(column, metric_type, index_params):
    """A segment's BM25 index built by _memdir_build_bm25 once the scorer is patched too; None: the original builds it."""
    if not _MEMDIR_FAST_BUILD or metric_type != "BM25":
        return None
    from milvus_lite.index.sparse_factory import create_sparse_index

    return _memdir_build_bm25(column, create_sparse_index(metric_type, index_params))


# Off only in the differential check (test/support/lite-patch-diff.py), which then compares the exact speed-ups alone.
_MEMDIR_GLOBAL_BM25 = [True]


def _memdir_rows_stats(rows):
    """BM25 statistics of decoded sparse rows, counted as the original's build counts them: rows, the sum of their term
    counts (added row by row, left to right), and per term the rows that hold it."""
    df = {}
    total = 0.0
    for sv in rows:
        if not sv:
            continue
        total += sum(sv.values())
        for term in sv:
            df[term] = df.get(term, 0) + 1
    return len(rows), total, df


class _MemdirSegmentStats:
    """One segment's BM25 statistics, as its own index holds them (every stored row counts), with the terms sorted."""

    __slots__ = ("n", "total", "terms", "df")

    def __init__(self, column):
        np = _memdir_np
        packed = _memdir_packed_pairs(column)
        if packed is not None:
            self.n, _lengths, terms, tfs = packed
            # Whole numbers (checked): the sum is exact, so equal to the original's in any order.
            self.total = float(tfs.sum(dtype=np.float64))
            # A term is at most once in a row here (checked too): its pairs count its rows.
            terms, self.df = np.unique(terms, return_counts=True)
            self.terms = terms.astype(np.int64)
        else:
            from milvus_lite.analyzer.sparse import bytes_to_sparse

            rows = [bytes_to_sparse(r) if isinstance(r, bytes) else (r or {}) for r in column.to_pylist()]
            self.n, self.total, df = _memdir_rows_stats(rows)
            self.terms = np.array(sorted(df), dtype=np.int64)
            self.df = np.array([df[t] for t in self.terms.tolist()], dtype=np.int64)

    def count(self, term):
        i = int(_memdir_np.searchsorted(self.terms, term))
        return int(self.df[i]) if i < len(self.terms) and self.terms[i] == term else 0


class _MemdirCollectionStats:
    """The BM25 statistics of a tuple of segments summed, as Milvus standalone sums its segments' for a shard.
    A segment's own are computed once (it is immutable) and carried over to the next tuple that still holds it."""

    def __init__(self, segments, field, previous):
        self.segments = tuple(segments)
        known = previous._by_id if previous is not None else {}
        by_id = {}
        for seg in self.segments:
            entry = known.get(id(seg))
            if entry is None or entry[0] is not seg:
                table = seg.table
                ok = table is not None and len(table) and field in table.column_names
                entry = (seg, _MemdirSegmentStats(table.column(field)) if ok else None)
            by_id[id(seg)] = entry
        self._by_id = by_id
        self._parts = [stats for _seg, stats in by_id.values() if stats is not None]
        self.n = sum(p.n for p in self._parts)
        self.total = sum((p.total for p in self._parts), 0.0)
        self._df = {}

    def same(self, segments):
        # The segment objects themselves are compared (kept alive here): an id() could be reused.
        return len(segments) == len(self.segments) and all(a is b for a, b in zip(segments, self.segments))

    def df(self, term):
        known = self._df.get(term)
        if known is None:
            known = sum(p.count(term) for p in self._parts)
            if len(self._df) < 100000:
                self._df[term] = known
        return known


class _MemdirSearchStats:
    """One search's BM25 statistics: its segments' summed, plus the memtable's rows of its partitions (they change
    between calls; memdir flushes after each write, so there are seldom any)."""

    __slots__ = ("n", "avgdl", "_segments", "_memtable_df")

    def __init__(self, segments, memtable_rows):
        n, total, self._memtable_df = _memdir_rows_stats(memtable_rows)
        self._segments = segments
        self.n = segments.n + n
        total = segments.total + total
        # As the original's build and search: avgdl 0 (no term at all) is taken as 1.
        avgdl = total / self.n if self.n > 0 else 0.0
        self.avgdl = avgdl if avgdl > 0 else 1.0

    def df(self, term):
        return self._segments.df(term) + self._memtable_df.get(term, 0)


def _memdir_collection_stats(collection, segments, partition_names, field, metric_type, memtable_live):
    """The BM25 statistics a search scores with: those of the searched partitions (all of them when none is named);
    None: each segment's own (not BM25, or not patched)."""
    if not _MEMDIR_GLOBAL_BM25[0] or not _MEMDIR_FAST_BUILD or metric_type != "BM25":
        return None
    cache = getattr(collection, "_memdir_bm25_stats", None)
    if cache is None or len(cache) > 64:
        cache = collection._memdir_bm25_stats = {}
    key = (field, tuple(sorted(partition_names)) if partition_names else None)
    if partition_names:
        segments = [seg for seg in segments if seg.partition in partition_names]
    base = cache.get(key)
    if base is None or not base.same(segments):
        base = cache[key] = _MemdirCollectionStats(segments, field, base)
    rows = []
    if memtable_live:
        from milvus_lite.analyzer.sparse import bytes_to_sparse

        for _pk, _seq, record in collection._memtable.active_record_snapshots(partition_names=partition_names):
            raw = record.get(field)
            rows.append(bytes_to_sparse(raw) if isinstance(raw, bytes) else (raw or {}))
    return _MemdirSearchStats(base, rows)


def _memdir_scored(index, queries, top_k, valid_mask, stats):
    """A source's BM25 hits scored with the search's statistics; without them, as Milvus Lite scores."""
    from milvus_lite.index.sparse_factory import _search_prepared_sparse_index
    from milvus_lite.index.sparse_inverted import SparseInvertedIndex

    if stats is None or not isinstance(index, SparseInvertedIndex):
        return _search_prepared_sparse_index(index, queries, top_k, valid_mask=valid_mask)
    return _memdir_bm25_search(index, queries, top_k, valid_mask, stats)


def _memdir_patch_sparse():
    import inspect
    import textwrap

    import milvus_lite.engine.collection as coll

    # The blocks as they stand in the method's source once dedented (its body 4 spaces in; 8 in the file).
    versions = (
        "    global_pk_seq: Dict[Any, int] = {}\n"
        "    for seg in seg_snapshot:\n"
        "        # Resolve collection-wide versions before partition pruning, just\n"
        "        # as for MemTable rows. Moving a pk must not reveal its old version\n"
        "        # in the source partition after the new version is flushed.\n"
        "        for i, pk in enumerate(seg.pks):\n"
        "            seq = int(seg.seqs[i])\n"
        "            if pk not in global_pk_seq or seq > global_pk_seq[pk]:\n"
        "                global_pk_seq[pk] = seq\n"
        "    # Resolve versions by sequence, not by physical source order.\n"
        "    for pk, (_, _, seq) in self._memtable.pk_index_snapshot():\n"
    )
    walk = (
        "        n = len(pks)\n"
        "        valid_mask = np.ones(n, dtype=bool)\n"
        "        for i in range(n):\n"
        "            pk, seq = pks[i], int(seqs[i])\n"
        "            pending_delete = mt_deletes.get(pk)\n"
        "            if (delta_snap.is_deleted(pk, seq)\n"
        "                    or (pending_delete is not None and pending_delete[0] > seq\n"
        "                        and pending_delete[1] in (ALL_PARTITIONS, seg.partition))):\n"
        "                valid_mask[i] = False\n"
        "            elif global_pk_seq.get(pk, -1) > seq:\n"
        "                # Stale version \u2014 a newer version exists in another segment or memtable\n"
        "                valid_mask[i] = False\n"
    )
    build = (
        "        if not sparse_index_matches(cached_idx, metric_type, index_params):\n"
        "            sparse_batch = table.column(vector_field).to_pylist()\n"
        "            sparse_vecs = [\n"
        "                bytes_to_sparse(r) if isinstance(r, bytes) else (r or {})\n"
        "                for r in sparse_batch\n"
        "            ]\n"
        "            cached_idx = create_sparse_index(metric_type, index_params)\n"
        "            cached_idx.build(sparse_vecs)  # no valid_mask \u2014 full segment\n"
    )
    segment_loop = "    for seg in seg_snapshot:\n        if partition_filter is not None:\n"
    segment_scores = (
        "        local_ids, dists = _search_prepared_sparse_index(\n            cached_idx, query_sparse, top_k, valid_mask=valid_mask,\n        )\n"
    )
    memtable_scores = "        local_ids, dists = _search_prepared_sparse_index(mt_idx, query_sparse, top_k)\n"
    hit = "                record = {\n                    name: tbl.column(name)[row_i].as_py()\n                    for name in tbl.column_names\n"
    record = hit + '                    if name not in ("_seq", "_partition")\n                }\n'
    winners = "        for dist, pk, source in deduped:\n"
    try:
        source = textwrap.dedent(inspect.getsource(coll.Collection._search_sparse))
    except (OSError, TypeError):
        print("memdir: BM25 search left unpatched (no source)", flush=True)
        return
    blocks = (versions, walk, hit, record, winners, build, segment_loop, segment_scores, memtable_scores)
    if any(source.count(block) != 1 for block in blocks):
        print("memdir: BM25 search left unpatched (another Milvus Lite version)", flush=True)
        return
    source = source.replace(
        versions,
        (
            "    _memdir_v = _memdir_segments_versions(self, seg_snapshot)\n"
            "    _memdir_mt = self._memtable.pk_index_snapshot()\n"
            "    _memdir_mt_pks = [pk for pk, _ in _memdir_mt]\n"
            "    # The cached map itself unless the memtable adds versions to it (read only below).\n"
            "    global_pk_seq: Dict[Any, int] = dict(_memdir_v.newest) if _memdir_mt else _memdir_v.newest\n"
            "    def _memdir_row(seg, pk, seq):\n"
            "        pending_delete = mt_deletes.get(pk)\n"
            "        if (delta_snap.is_deleted(pk, seq)\n"
            "                or (pending_delete is not None and pending_delete[0] > seq\n"
            "                    and pending_delete[1] in (ALL_PARTITIONS, seg.partition))):\n"
            "            return False\n"
            "        return not global_pk_seq.get(pk, -1) > seq\n"
            "    for pk, (_, _, seq) in _memdir_mt:\n"
        ),
    )
    source = source.replace(
        walk,
        (
            "        n = len(pks)\n"
            "        valid_mask = _memdir_v.mask(seqs, _memdir_row, (_memdir_mt_pks, delta_snap._map, mt_deletes))\n"
            "        if valid_mask is None:\n"
        )
        + _memdir_indent(walk.split("\n", 1)[1]),
    )
    first, rest = build.split("\n", 1)
    source = source.replace(
        build,
        first
        + "\n"
        + ("            cached_idx = _memdir_fast_bm25(table.column(vector_field), metric_type, index_params)\n            if cached_idx is None:\n")
        + _memdir_indent(rest),
    )
    # Every source's hits scored with the same statistics, so they compare in the merge (the original's own TODO).
    source = source.replace(
        segment_loop,
        ("    _memdir_stats = _memdir_collection_stats(self, seg_snapshot, partition_names, vector_field, metric_type, bool(_memdir_mt))\n") + segment_loop,
    )
    source = source.replace(segment_scores, "        local_ids, dists = _memdir_scored(cached_idx, query_sparse, top_k, valid_mask, _memdir_stats)\n")
    source = source.replace(memtable_scores, "        local_ids, dists = _memdir_scored(mt_idx, query_sparse, top_k, None, _memdir_stats)\n")
    # The hits' shown columns (_memdir_hit_columns), read for all the winners of a query at once.
    source = source.replace(
        winners,
        "        _memdir_pre = _memdir_hit_records(deduped[:top_k], _is_memtable_sparse_ref, self._schema, projection_plan)\n" + winners,
    )
    source = source.replace(record, "                record = _memdir_pre[(id(tbl), row_i)]\n")

    def segments_versions(collection, segments):
        cached = getattr(collection, "_memdir_versions", None)
        if cached is None or not cached.same(segments):
            cached = _MemdirVersions(segments)
            collection._memdir_versions = cached
        return cached

    coll._memdir_segments_versions = segments_versions
    coll._memdir_hit_records = _memdir_hit_records
    coll._memdir_fast_bm25 = _memdir_fast_bm25
    coll._memdir_collection_stats = _memdir_collection_stats
    coll._memdir_scored = _memdir_scored
    scope = {}
    exec(compile(source, coll.__file__, "exec"), coll.__dict__, scope)
    coll.Collection._search_sparse = scope["_search_sparse"]
    print("memdir: BM25 search reuses its per-segment version map", flush=True)
    print("memdir: BM25 search reuses its segments' newest rows", flush=True)
    print("memdir: BM25 search reads only the shown fields of its hits", flush=True)
    print("memdir: BM25 search reads its hits' fields together per segment", flush=True)
    print("memdir: BM25 scores with its partitions' statistics, not each segment's", flush=True)


def _memdir_bm25_search(self, query_sparse_vectors, top_k, valid_mask=None, stats=None):
    """SparseInvertedIndex.search over numpy arrays: the same float32 arithmetic, element by element, in the same order;
    with `stats`, its N, average length and document frequencies instead of this index's own."""
    import math

    from milvus_lite.index.sparse_common import empty_results, validate_mask

    np = _memdir_np
    valid_mask = validate_mask(valid_mask, len(self._doc_lengths))
    nq = len(query_sparse_vectors)
    all_ids, all_dists = empty_results(nq, top_k)
    if self.doc_count == 0:
        return all_ids, all_dists
    N = self.doc_count
    k1 = self.k1
    b = self.b
    avgdl = self.avgdl if self.avgdl > 0 else 1.0
    df_of = self._df.__getitem__
    if stats is not None:
        N, avgdl, df_of = stats.n, stats.avgdl, stats.df
    # Posting lists as arrays, made once per list (build() makes new lists, so they are keyed by the dict's identity).
    cache = getattr(self, "_memdir_arrays", None)
    if cache is None or cache[0] is not self._posting_lists:
        cache = (self._posting_lists, {})
        self._memdir_arrays = cache
    arrays = cache[1]
    n = len(self._doc_lengths)
    for qi in range(nq):
        query_terms = query_sparse_vectors[qi]
        if not query_terms:
            continue
        scores = np.zeros(n, dtype=np.float32)
        # The original ranks equal scores in the order documents were first scored: by term, then by posting.
        first = np.full(n, -1, dtype=np.int64)
        order = 0
        for term_hash, query_weight in query_terms.items():
            posting = self._posting_lists.get(term_hash)
            if not posting:
                continue
            pair = arrays.get(term_hash)
            if pair is None and isinstance(posting, _MemdirPosting):
                pair = (posting.ids, posting.tfs)
            if pair is None:
                ids = np.fromiter((p[0] for p in posting), dtype=np.int64, count=len(posting))
                tfs = np.fromiter((p[1] for p in posting), dtype=np.float64, count=len(posting))
                pair = (ids, tfs)
                arrays[term_hash] = pair
            ids, tf = pair
            if valid_mask is not None:
                keep = valid_mask[ids]
                ids, tf = ids[keep], tf[keep]
                if len(ids) == 0:
                    continue
            df = df_of(term_hash)
            idf = math.log((N - df + 0.5) / (df + 0.5) + 1.0)
            dl = self._doc_lengths[ids]
            # As the scalar code computes it: Python floats in double, each meeting a float32 cast to float32 first.
            numerator = (tf * (k1 + 1.0)).astype(np.float32)
            denominator = tf.astype(np.float32) + np.float32(k1) * (np.float32(1.0 - b) + np.float32(b) * dl / np.float32(avgdl))
            tf_norm = numerator / denominator
            scores[ids] += (np.float32(idf) * tf_norm) * np.float32(query_weight)
            new = first[ids] < 0
            first[ids[new]] = order + np.arange(int(new.sum()), dtype=np.int64)
            order += int(new.sum())
        scored = np.flatnonzero(first >= 0)
        if len(scored) == 0:
            continue
        ranked = scored[np.lexsort((first[scored], -scores[scored]))]
        k_actual = min(top_k, len(ranked))
        all_ids[qi, :k_actual] = ranked[:k_actual]
        all_dists[qi, :k_actual] = -scores[ranked[:k_actual]]
    return all_ids, all_dists


# SHA-256 of Milvus Lite 3.2.2's SparseInvertedIndex.search source, which _memdir_bm25_search reproduces.
_MEMDIR_BM25_SEARCH_SHA256 = "4b6c5484c6d1bc20d3040b3d32e4631480c428e397bcd532df575b7a1f51a374"


def _memdir_patch_bm25_scoring():
    import hashlib

    # Exactly the scorer this replaces: the same formula and order of operations (checked by its source), else left.
    import inspect

    import milvus_lite.index.sparse_inverted as inv

    try:
        digest = hashlib.sha256(inspect.getsource(inv.SparseInvertedIndex.search).encode()).hexdigest()
    except (OSError, TypeError):
        digest = None
    if digest != _MEMDIR_BM25_SEARCH_SHA256:
        print("memdir: BM25 scoring left unpatched (another Milvus Lite version)", flush=True)
        return
    inv.SparseInvertedIndex.search = _memdir_bm25_search
    _MEMDIR_FAST_BUILD.append(True)
    print("memdir: BM25 scores each query term's postings as arrays", flush=True)
    print("memdir: BM25 builds a segment's index from its packed column as arrays", flush=True)


def _memdir_patch_dense():
    import __future__

    import inspect
    import os

    import milvus_lite.engine.collection as coll
    import milvus_lite.search.executor_indexed as ex

    versions = "    for seg in in_scope_segments:\n        _update_max_seqs(list(seg.pks), seg.seqs)\n"
    walk = (
        "        n = len(pks)\n"
        "        local_mask = np.zeros(n, dtype=bool)\n"
        "        for i in range(n):\n"
        "            pk = pks[i]\n"
        "            seq = int(seqs[i])\n"
        "            # Cross-source max-seq dedup.\n"
        "            if global_max_seqs.get(pk) != seq:\n"
        "                continue\n"
        "            # Tombstone: a strictly larger delete_seq shadows this row.\n"
        "            if delta_index.is_deleted(pk, seq):\n"
        "                continue\n"
        "            mt_entry = mt_deletes.get(pk)\n"
        "            if mt_entry is not None and mt_entry[0] > seq:\n"
        "                continue\n"
        "            local_mask[i] = True\n"
    )
    # Not rewritten, but pinned: _memdir_materialize reads a query's segment rows itself and hands _materialize_record
    # the memtable's alone, which holds while a segment row is read this way and nowhere else.
    hit = "            return in_scope_segments[source_idx].row_to_dict(local_id)\n"
    winners = "        for dist, source_idx, local_id in candidates[:top_k]:\n            record = _materialize_record(source_idx, local_id)\n"
    try:
        source = inspect.getsource(ex.execute_search_with_index)
    except (OSError, TypeError):
        print("memdir: dense search left unpatched (no source)", flush=True)
        return
    if (
        source.count(versions) != 1
        or source.count(walk) != 1
        or source.count(hit) != 1
        or source.count(winners) != 1
        or coll.execute_search_with_index is not ex.execute_search_with_index
    ):
        print("memdir: dense search left unpatched (another Milvus Lite version)", flush=True)
        return
    source = source.replace(
        versions,
        (
            "    _memdir_v = _memdir_partition_versions(in_scope_segments)\n"
            "    global_max_seqs.update(_memdir_v.newest)\n"
            "    def _memdir_row(seg, pk, seq):\n"
            "        if global_max_seqs.get(pk) != seq:\n"
            "            return False\n"
            "        if delta_index.is_deleted(pk, seq):\n"
            "            return False\n"
            "        mt_entry = mt_deletes.get(pk)\n"
            "        return not (mt_entry is not None and mt_entry[0] > seq)\n"
        ),
    )
    source = source.replace(
        walk,
        (
            "        n = len(pks)\n"
            "        local_mask = _memdir_v.mask(seqs, _memdir_row, (mt_pks, delta_index._map, mt_deletes))\n"
            "        if local_mask is None:\n"
        )
        + _memdir_indent(walk.split("\n", 1)[1]),
    )
    source = source.replace(
        winners,
        (
            "        _memdir_won = candidates[:top_k]\n"
            "        _memdir_records = _memdir_materialize(_memdir_won, in_scope_segments, _materialize_record, output_fields, pk_field)\n"
            "        for (dist, source_idx, local_id), record in zip(_memdir_won, _memdir_records):\n"
        ),
    )
    # One entry per set of partition folders searched (a user's partition): a newer set of the same folders replaces
    # it, so at most one superseded set of segments is kept alive per folder set, as the BM25 entry keeps one.
    maps = {}

    def partition_versions(segments):
        segments = tuple(segments)
        key = tuple(sorted({os.path.dirname(s.file_path) for s in segments}))
        cached = maps.get(key)
        if cached is None or not cached.same(segments):
            cached = _MemdirVersions(segments)
            maps[key] = cached
        return cached

    ex._memdir_partition_versions = partition_versions
    ex._memdir_materialize = _memdir_materialize
    scope = {}
    # The module's own future import (annotations as strings) holds for the rewritten function too.
    exec(compile(source, ex.__file__, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True), ex.__dict__, scope)
    ex.execute_search_with_index = scope["execute_search_with_index"]
    coll.execute_search_with_index = scope["execute_search_with_index"]
    print("memdir: dense search reuses its per-partition version map", flush=True)
    print("memdir: dense search reuses its segments' newest rows", flush=True)
    print("memdir: dense search reads only the shown fields of its hits", flush=True)
    print("memdir: dense search reads its hits' fields together per segment", flush=True)


# The sources of the projection this replaces for searches: project_record and the primary-key test it calls.
_MEMDIR_PROJECTION_SHA256 = (
    "1a05f13dfb2f8d56af9bd49eaa301091ee2b5a2c6334b65c91bf3c127a1bb337",
    "a069b72caddbfb0119df7c2fc5734f10a23f69b86be06c33fbf1e06d76fe55eb",
)
# Milvus Lite's own project_record (for reads other than a search), and the request last prepared: (schema, plan, the
# schema's field list, its length, the schema fields a hit shows).
_MEMDIR_PROJECTION = [None, None]


def _memdir_project_record(record, schema, plan):
    """projection.project_record with the fields a search's hit shows found once per request, not once per hit."""
    if plan.api_kind != "search":
        return _MEMDIR_PROJECTION[0](record, schema, plan)
    from milvus_lite.engine.projection import extract_dynamic_fields

    known = _MEMDIR_PROJECTION[1]
    # A plan is made per request; a changed schema is a new object (Milvus Lite deep-copies it to alter it), and its
    # field list and length are checked too.
    if known is None or known[0] is not schema or known[1] is not plan or known[2] is not schema.fields or known[3] != len(schema.fields):
        primary = {field.name for field in schema.fields if field.is_primary}
        shown = tuple(name for name in plan.response_schema_fields if name not in primary)
        known = (schema, plan, schema.fields, len(schema.fields), shown)
        _MEMDIR_PROJECTION[1] = known
    dynamic = extract_dynamic_fields(record, schema)
    if plan.include_all_dynamic:
        result = dict(dynamic)
    else:
        result = {name: dynamic[name] for name in plan.explicit_dynamic_fields if name in dynamic}
    for name in known[4]:
        if name in record:
            result[name] = record[name]
    result.pop("$meta", None)
    return result


def _memdir_patch_projection():
    """Each hit of a search was projected by asking, for each field it shows, whether that is the primary key, by walking
    every field of the schema: for memdir's 16 asked fields of 50 hits, 800 calls walking its fields per request, a sixth
    of the server's CPU time for a search of memdir's (docs/performance.md). The shown fields are the same for every hit
    of a request: they are found once, for the request's plan."""
    import hashlib
    import inspect

    import milvus_lite.engine.collection as coll
    import milvus_lite.engine.projection as proj

    try:
        digests = tuple(hashlib.sha256(inspect.getsource(f).encode()).hexdigest() for f in (proj.project_record, proj._is_primary))
    except (OSError, TypeError):
        digests = None
    if digests != _MEMDIR_PROJECTION_SHA256 or coll.project_record is not proj.project_record:
        print("memdir: search projection left unpatched (another Milvus Lite version)", flush=True)
        return
    _MEMDIR_PROJECTION[0] = proj.project_record
    coll.project_record = _memdir_project_record
    print("memdir: search finds the fields its hits show once per request, not once per hit", flush=True)


def apply():
    """Patches the running Milvus Lite (call before the server starts); refuses any other Milvus Lite version."""
    require_patched_version()
    _memdir_patch_sparse()
    _memdir_patch_bm25_scoring()
    _memdir_patch_dense()
    _memdir_patch_projection()
