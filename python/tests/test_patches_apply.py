"""Every rewrite of memdir's Milvus Lite patches finds its code in the pinned Milvus Lite: none is left unpatched.
(Their results are compared with unpatched Milvus Lite's by the integration tests, on a real server.)"""

import importlib.metadata

from memdir_runtime import lite_search_patch, lite_write_patch
from memdir_runtime.milvus_lite_version import PATCHED_VERSION


def test_the_runtime_holds_the_patched_version():
    assert importlib.metadata.version("milvus-lite") == PATCHED_VERSION


def test_the_search_patch_applies_whole(capsys):
    lite_search_patch.apply()
    out = capsys.readouterr().out
    assert "left unpatched" not in out
    for line in (
        "BM25 search reuses its per-segment version map",
        "BM25 scores with its partitions' statistics, not each segment's",
        "BM25 scores each query term's postings as arrays",
        "BM25 search reads its hits' fields together per segment",
        "dense search reuses its segments' newest rows",
        "dense search reads only the shown fields of its hits",
        "dense search reads its hits' fields together per segment",
        "search finds the fields its hits show once per request, not once per hit",
    ):
        assert "memdir: " + line in out


def test_the_write_patch_applies_whole(capsys):
    lite_write_patch.apply()
    out = capsys.readouterr().out
    assert "left unpatched" not in out
    assert "memdir: background compaction and index builds wait for a pause in writes" in out
