# An OpenAI-compatible /v1/embeddings server for all-mpnet-base-v2 on loopback, for measuring the second
# dense field (issue 12) with `mem bench locomo`: mean pooling over the attention mask, L2 norm, at most
# 384 tokens (the model's sentence_bert_config.json), as embed_cache.py embedded round four (sentence-
# transformers' encode does exactly this for this model). No secret: a measuring tool, not memdir's runtime.
# Usage: OMP_NUM_THREADS=1 nice -n 10 /tmp/model-venv/bin/python mpnet_serve.py PORT [MODEL_DIR] [THREADS]
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Lock

import torch
from sentence_transformers import SentenceTransformer

port = int(sys.argv[1])
model_dir = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("MPNET_DIR", "/tmp/model-dl/mpnet/m/all-mpnet-base-v2")
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
model = SentenceTransformer(model_dir, device="cpu")
model.max_seq_length = 384
lock = Lock()  # one request at a time: two would only share the same thread
served = {"texts": 0, "seconds": 0.0}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply(200, {"status": "ok", "model": "all-mpnet-base-v2", **served})

    def do_POST(self):
        if not self.path.rstrip("/").endswith("/embeddings"):
            return self.reply(404, {"error": {"message": "not found"}})
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        t0 = time.perf_counter()
        with lock:
            vectors = model.encode(texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        served["texts"] += len(texts)
        served["seconds"] += time.perf_counter() - t0
        self.reply(200, {
            "object": "list",
            "model": "all-mpnet-base-v2",
            "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        })


httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("all-mpnet-base-v2 on http://127.0.0.1:%d" % port, flush=True)
try:
    httpd.serve_forever()
except KeyboardInterrupt:
    httpd.shutdown()
