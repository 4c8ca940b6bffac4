"""The Python side of memdir's embedded runtime: owner-only launchers of the shared servers and Milvus Lite patches."""
