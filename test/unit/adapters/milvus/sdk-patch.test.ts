// Covers patches/@zilliz+milvus2-sdk-node+*.patch (applied by `npm install` through patch-package): loading the SDK
// leaves its bulk writer unloaded, a client builds the gRPC package definition once for its two services, and the
// protobuf roots only a search or a collection's creation needs are built on first use, and float vectors are encoded
// in one piece (the same bytes as protobufjs's generated encoder).
import { createRequire } from 'node:module';

import { describe, expect, it } from 'vitest';

// Required, not imported: the SDK is CommonJS, and what it loads shows in require's cache.
const require = createRequire(import.meta.url);
const sdk = require('@zilliz/milvus2-sdk-node') as typeof import('@zilliz/milvus2-sdk-node');
// Its logger writes to stdout at debug level under NODE_ENV=test (as milvus-index.ts, silenced).
sdk.logger.silent = true;

const loaded = (part: string) => Object.keys(require.cache).filter((path) => path.includes(`milvus2-sdk-node/dist/milvus/${part}`));

describe('the patched Milvus SDK', () => {
  it('loads its bulk writer only when it is asked for', () => {
    expect(loaded('utils/Grpc')).toHaveLength(1);
    expect(loaded('bulkwriter/')).toEqual([]);
    expect(typeof sdk.BulkWriter).toBe('function');
    expect(loaded('bulkwriter/').length).toBeGreaterThan(0);
  });

  it('builds the gRPC package definition once for every service of every client', () => {
    const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
    const milvus = sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, options);
    const telemetry = sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.ClientTelemetryService' }, options);
    expect(typeof milvus).toBe('function');
    expect(typeof telemetry).toBe('function');
    // The same definition answers again: the same constructors, not copies.
    expect(sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, { ...options })).toBe(milvus);
    // Other loader options get their own definition.
    expect(sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, { ...options, longs: Number })).not.toBe(milvus);
    const a = new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true });
    const b = new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true });
    const services = (c: unknown) => c as { _MilvusService: unknown; _ClientTelemetryService: unknown };
    expect(services(a)._MilvusService).toBe(milvus);
    expect(services(b)._ClientTelemetryService).toBe(telemetry);
  });

  it('builds the protobuf roots on first read, once per client', () => {
    const client = new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true }) as unknown as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(client, 'milvusProto')?.get).toBeTypeOf('function');
    const root = client.milvusProto as { lookupType: (name: string) => unknown };
    expect(root.lookupType('milvus.proto.common.PlaceholderGroup')).toBeDefined();
    expect(client.milvusProto).toBe(root);
    expect(Object.getOwnPropertyDescriptor(client, 'milvusProto')?.get).toBeUndefined();
    expect((client.schemaProto as { lookupType: (name: string) => unknown }).lookupType('milvus.proto.schema.FieldSchema')).toBeDefined();
  });

  it("encodes an insert's float vectors in one piece, to the bytes protobufjs's own encoder writes", () => {
    // protobufjs as the SDK loads it (not a dependency of memdir's own).
    const protobuf = createRequire(require.resolve('@zilliz/milvus2-sdk-node'))('protobufjs') as typeof import('protobufjs');
    const json = (require('@zilliz/milvus2-sdk-node/dist/milvus/proto-json/milvus') as { default: protobuf.INamespace }).default;
    const type = protobuf.Root.fromJSON(json).resolveAll().lookupType('milvus.proto.schema.FloatArray');
    // Values float32 rounds, negative zero, NaN, one past float32's range, and a vector's worth of ordinary ones.
    const data = [0.1, -0, Number.NaN, 1e40, ...Array.from({ length: 384 }, (_, i) => Math.sin(i) * 1.5)];
    const message = type.fromObject({ data });
    const patched = type.encode(message).finish();
    // The patch's encoder, not the generated one (named FloatArray$encode).
    expect(type.encode.name).toBe('FloatArray$encodeInOnePiece');
    const generated = (protobuf.encoder(type) as unknown as (scope: object) => (m: unknown) => protobuf.Writer)({
      Writer: protobuf.Writer,
      types: [],
      util: protobuf.util,
    });
    expect(Buffer.from(patched)).toEqual(Buffer.from(generated(message).finish()));
    // An empty vector writes nothing, as generated.
    expect(type.encode(type.fromObject({ data: [] })).finish()).toHaveLength(0);

    // Through the gRPC client's own serializer: an insert's rows come back as float32.
    const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
    const service = sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, options) as unknown as {
      service: { Insert: { requestSerialize(value: unknown): Buffer; requestDeserialize(bytes: Buffer): Record<string, unknown> } };
    };
    const vectors = Array.from({ length: 2 * 384 }, (_, i) => Math.cos(i) / 3);
    const request = {
      collection_name: 'c',
      num_rows: 2,
      fields_data: [{ type: 101, field_name: 'vector', vectors: { dim: 384, float_vector: { data: vectors } } }],
    };
    const decoded = service.service.Insert.requestDeserialize(service.service.Insert.requestSerialize(request)) as {
      fields_data: { vectors: { float_vector: { data: number[] } } }[];
    };
    expect(decoded.fields_data[0]!.vectors.float_vector.data).toEqual(vectors.map(Math.fround));
  });
});
