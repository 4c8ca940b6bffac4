"""The one Milvus Lite release memdir's patches are made for: they rewrite its code by exact text, so any other
release is refused with both versions named rather than patched blindly or silently left slow."""

import importlib.metadata

PATCHED_VERSION = "3.2.2"


def require_patched_version(installed=None):
    installed = installed if installed is not None else importlib.metadata.version("milvus-lite")
    if installed != PATCHED_VERSION:
        raise RuntimeError(
            "memdir's Milvus Lite patches are made for milvus-lite %s, but milvus-lite %s is installed: "
            "reinstall memdir's runtime (delete its runtime folder; the next command sets it up again)" % (PATCHED_VERSION, installed)
        )
