"""Milvus Lite's gRPC server for memdir: loopback only, every call checked for the owner's secret, with memdir's
patches of Milvus Lite applied. Neither Milvus Lite nor gRPC's Python server has authentication of its own.

Usage: python -m memdir_runtime.milvus_lite_server <data-dir> <port> <workers>
"""

import base64
import hmac
import sys
from concurrent import futures

from memdir_runtime import lifecycle, lite_search_patch, lite_write_patch
from memdir_runtime.secret import take_secret

# The Milvus SDKs send a token as base64 in the "authorization" metadata.
MESSAGE_LIMIT = 256 * 1024 * 1024
DENIED = "this Milvus Lite server answers only the memdir processes of its owner"


def main(argv):
    import grpc
    import milvus_lite.adapter.grpc.server as srv
    from milvus_lite.adapter.grpc.servicer import MilvusServicer
    from pymilvus.grpc_gen import milvus_pb2_grpc

    expected = base64.b64encode(take_secret().encode())
    served = lifecycle.start()
    lite_search_patch.apply()
    lite_write_patch.apply()

    def deny(request, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, DENIED)

    class OwnerOnly(grpc.ServerInterceptor):
        def __init__(self):
            self.denied = grpc.unary_unary_rpc_method_handler(deny)

        def intercept_service(self, continuation, details):
            served.touch()
            for key, value in details.invocation_metadata or ():
                if key == "authorization" and isinstance(value, str) and hmac.compare_digest(value.encode("utf-8", "replace"), expected):
                    return continuation(details)
            return self.denied

    def build(db, max_workers):
        options = [("grpc.max_receive_message_length", MESSAGE_LIMIT), ("grpc.max_send_message_length", MESSAGE_LIMIT)]
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), interceptors=[OwnerOnly()], options=options)
        milvus_pb2_grpc.add_MilvusServiceServicer_to_server(MilvusServicer(db), server)
        return server

    srv._build_server = build
    srv.run_server(data_dir=argv[0], host="127.0.0.1", port=int(argv[1]), max_workers=int(argv[2]))


if __name__ == "__main__":
    main(sys.argv[1:])
