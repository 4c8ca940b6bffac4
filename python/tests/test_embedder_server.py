"""The embedding server's handler, on a real loopback socket: what a client of the shared server gets."""

import http.client
import socket
import threading
from http.server import ThreadingHTTPServer

import pytest

from memdir_runtime.embedder_server import owner_only_handler
from memdir_runtime.lifecycle import Lifecycle


@pytest.fixture
def served():
    """A server of the owner-only handler (no model: /health needs none); yields its port and each request's TCP_NODELAY."""
    nodelay = []
    owner_only = owner_only_handler("s3cret", Lifecycle())

    class Probe(owner_only):
        def do_GET(self):
            nodelay.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            owner_only.do_GET(self)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Probe)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_address[1], nodelay
    finally:
        httpd.shutdown()
        httpd.server_close()


def get(port, token):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/health", headers={"Authorization": "Bearer " + token})
        res = conn.getresponse()
        return res.status, res.read()
    finally:
        conn.close()


def test_an_answer_is_sent_at_once_not_held_back_for_the_clients_ack(served):
    port, nodelay = served
    assert get(port, "s3cret") == (200, b'{"status": "ok"}')
    assert len(nodelay) == 1 and nodelay[0] != 0


def test_a_request_without_the_secret_is_refused(served):
    port, _ = served
    status, body = get(port, "wrong")
    assert status == 401 and b"answers only the memdir processes of its owner" in body
