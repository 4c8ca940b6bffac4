"""all-mpnet-base-v2 behind an OpenAI-compatible /v1/embeddings for memdir's second dense field, 401 without the
owner's secret. Mean pooling over the attention mask, L2 norm, at most 384 tokens: what sentence-transformers' encode
does for this model.

Usage: python -m memdir_runtime.mpnet_server <port> <model-folder> <torch-threads>
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from memdir_runtime import lifecycle
from memdir_runtime.secret import UNAUTHORIZED, bearer_matches, take_secret

BATCH = 16
MAX_TOKENS = 384


def requested_texts(body):
    """The texts of an embeddings request body; ValueError/KeyError/TypeError when it is not one."""
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    if not all(isinstance(t, str) for t in texts):
        raise ValueError("input must be a string or a list of strings")
    return texts


def main(argv):
    import torch
    from transformers import AutoModel, AutoTokenizer

    secret = take_secret()
    served = lifecycle.start()
    torch.set_num_threads(int(argv[2]))
    tokenizer = AutoTokenizer.from_pretrained(argv[1])
    model = AutoModel.from_pretrained(argv[1]).eval()
    lock = threading.Lock()  # one batch at a time: two would only share the same threads

    def embed(texts):
        out = []
        for i in range(0, len(texts), BATCH):
            batch = tokenizer(texts[i : i + BATCH], padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
            with torch.inference_mode():
                hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.extend(torch.nn.functional.normalize(pooled, p=2, dim=1).tolist())
        return out

    class OwnerOnly(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code, body):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def owner(self):
            served.touch()
            if bearer_matches(self.headers.get("Authorization"), secret):
                return True
            self.close_connection = True  # the request body is not read: the connection cannot be reused
            self.reply(401, {"error": {"message": UNAUTHORIZED, "type": "authentication_error"}})
            return False

        def do_GET(self):
            if self.owner():
                self.reply(200, {"status": "ok", "model": "all-mpnet-base-v2"})

        def do_POST(self):
            if not self.owner():
                return
            if not self.path.rstrip("/").endswith("/embeddings"):
                return self.reply(404, {"error": {"message": "not found"}})
            try:
                texts = requested_texts(json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0")))))
            except (ValueError, KeyError, TypeError) as err:
                return self.reply(400, {"error": {"message": str(err), "type": "invalid_request_error"}})
            with lock:
                vectors = embed(texts)
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
            self.reply(200, {"object": "list", "model": "all-mpnet-base-v2", "data": data, "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    httpd = ThreadingHTTPServer(("127.0.0.1", int(argv[0])), OwnerOnly)
    print("all-mpnet-base-v2 server (owner only) on http://127.0.0.1:%s" % argv[0], flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        httpd.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
