// A gRPC proxy in front of a Milvus that forwards every call and keeps a decoded copy of each request: how a test
// sees request fields that a Milvus Lite server accepts and ignores (the consistency level of a read). One answer
// is made to say what a real Milvus says: a collection's default level is the one it was created with.
import { Client, Server, ServerCredentials, credentials, type MethodDefinition, type UntypedServiceImplementation, type handleUnaryCall } from '@grpc/grpc-js';
import { getGRPCService } from '@zilliz/milvus2-sdk-node';

export interface RecordedCall {
  method: string;
  /** The request as the server decodes it (enums by name, defaults filled in). */
  request: Record<string, unknown>;
}

export interface Recorder {
  /** host:port to give the client instead of the server's. */
  address: string;
  calls: RecordedCall[];
  stop(): Promise<void>;
}

const same = (b: Buffer) => b;

/** Starts a recorder in front of `uri` (http://host:port or https://host:port). */
export async function startRecorder(uri: string): Promise<Recorder> {
  // The Milvus service as the SDK itself defines it: the same paths and the same protobuf decoding.
  const service = getGRPCService(
    { serviceName: 'milvus.proto.milvus.MilvusService' },
    { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true },
  ).service;
  const url = new URL(uri.includes('://') ? uri : `http://${uri}`);
  const upstream = new Client(
    `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 19530)}`,
    url.protocol === 'https:' ? credentials.createSsl() : credentials.createInsecure(),
  );
  const calls: RecordedCall[] = [];
  const askedLevel = new Map<string, unknown>();
  const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const [method, def] of Object.entries(service)) {
    if (def.requestStream || def.responseStream) continue; // the client memdir uses makes unary calls only
    definition[method] = { ...def, requestSerialize: same, requestDeserialize: same, responseSerialize: same, responseDeserialize: same };
    const forward: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
      calls.push({ method, request: def.requestDeserialize(call.request) as Record<string, unknown> });
      // The client's own metadata (its token, database), without what the transport sets per connection.
      const metadata = call.metadata.clone();
      for (const key of Object.keys(metadata.getMap())) if (key === 'user-agent' || key.startsWith('grpc-')) metadata.remove(key);
      const request = calls.at(-1)!.request;
      if (method === 'CreateCollection') askedLevel.set(String(request.collection_name), request.consistency_level);
      upstream.makeUnaryRequest(def.path, same, same, call.request, metadata, (err, res) => {
        // A collection's default level as a real Milvus reports it: the one asked for at creation (Milvus Lite
        // reports Strong for every collection, which would hide a read that silently falls back to the default).
        if (!err && res && method === 'DescribeCollection') {
          const described = def.responseDeserialize(res) as Record<string, unknown>;
          const asked = askedLevel.get(String(request.collection_name));
          if (asked !== undefined && described.consistency_level !== asked) res = def.responseSerialize({ ...described, consistency_level: asked }) as Buffer;
        }
        callback(err, res);
      });
    };
    implementation[method] = forward;
  }
  const server = new Server();
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    calls,
    async stop() {
      upstream.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}
