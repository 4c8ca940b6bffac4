// Whether a port is held by memdir's own Milvus Lite: one gRPC call (GetVersion) over HTTP/2 with the server's
// secret, made with Node's http2 module so that checking a server does not load the Milvus SDK (~0.5 s of CPU).
// An open TCP port is not enough: after a server exits, another program (an HTTP/1 server) may take its port.
import { connect } from 'node:http2';

/** gRPC status of a call refused by the owner-only check (owner-only.ts): a Milvus Lite, but not this one. */
const UNAUTHENTICATED = '16';

/** True when a gRPC server on the port answers a call carrying the secret (any status but UNAUTHENTICATED). */
export function grpcAnswers(port: number, secret: string, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const session = connect(`http://127.0.0.1:${port}`);
    let status: string | undefined;
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    session.on('error', () => done(false));
    const call = session.request({
      ':method': 'POST',
      ':path': '/milvus.proto.milvus.MilvusService/GetVersion',
      'content-type': 'application/grpc',
      te: 'trailers',
      // As the Milvus SDKs send a token: base64 in the "authorization" metadata.
      authorization: Buffer.from(secret).toString('base64'),
    });
    const take = (headers: Record<string, unknown>) => {
      if (typeof headers['grpc-status'] === 'string') status = headers['grpc-status'];
    };
    call.on('response', take); // a trailers-only answer (an error) carries its status in the headers
    call.on('trailers', take);
    call.on('error', () => done(false));
    call.on('close', () => done(status !== undefined && status !== UNAUTHENTICATED));
    call.resume();
    call.end(Buffer.alloc(5)); // one empty message: flag 0, length 0
  });
}
