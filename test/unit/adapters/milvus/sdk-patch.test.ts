// Covers patches/@zilliz+milvus2-sdk-node+*.patch (applied by `npm install` through patch-package): loading the SDK
// leaves its bulk writer and @grpc/proto-loader unloaded, a client's two services are built once from one protobufjs
// root with the same methods, paths and (de)serializers as proto-loader's package definition, and the protobuf roots only a search or a collection's creation needs are built on first use, float vectors are encoded
// in one piece (the same bytes as protobufjs's generated encoder) and reach it as one Float32Array of all rows, and the
// retry interceptor writes no request or response out as JSON while its logger is silent.
import { createRequire } from 'node:module';

import { afterEach, describe, expect, it, vi } from 'vitest';

// Required, not imported: the SDK is CommonJS, and what it loads shows in require's cache.
const require = createRequire(import.meta.url);
const sdk = require('@zilliz/milvus2-sdk-node') as typeof import('@zilliz/milvus2-sdk-node');
// Its logger writes to stdout at debug level under NODE_ENV=test (as milvus-index.ts, silenced).
sdk.logger.silent = true;

const loaded = (part: string) => Object.keys(require.cache).filter((path) => path.includes(`milvus2-sdk-node/dist/milvus/${part}`));

describe('the patched Milvus SDK', () => {
  it('loads its bulk writer only when it is asked for, and proto-loader not at all', () => {
    expect(loaded('utils/Grpc')).toHaveLength(1);
    new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true });
    expect(Object.keys(require.cache).filter((path) => path.includes('@grpc/proto-loader'))).toEqual([]);
    expect(loaded('bulkwriter/')).toEqual([]);
    expect(typeof sdk.BulkWriter).toBe('function');
    expect(loaded('bulkwriter/').length).toBeGreaterThan(0);
  });

  it('builds each service once for every client', () => {
    const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
    const milvus = sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, options);
    const telemetry = sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.ClientTelemetryService' }, options);
    expect(typeof milvus).toBe('function');
    expect(typeof telemetry).toBe('function');
    // The same definition answers again: the same constructors, not copies.
    expect(sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, { ...options })).toBe(milvus);
    // Other loader options get their own constructor.
    expect(sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, { ...options, longs: Number })).not.toBe(milvus);
    const a = new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true });
    const b = new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true });
    const services = (c: unknown) => c as { _MilvusService: unknown; _ClientTelemetryService: unknown };
    expect(services(a)._MilvusService).toBe(milvus);
    expect(services(b)._ClientTelemetryService).toBe(telemetry);
  });

  it("builds each service as @grpc/proto-loader's package definition has it: methods, paths, (de)serializers", () => {
    const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
    const fromSdk = createRequire(require.resolve('@zilliz/milvus2-sdk-node'));
    const loader = fromSdk('@grpc/proto-loader') as typeof import('@grpc/proto-loader');
    const json = (require('@zilliz/milvus2-sdk-node/dist/milvus/proto-json/milvus') as { default: object }).default;
    const reference = loader.fromJSON(json, options);
    type Method = {
      path: string;
      requestStream: boolean;
      responseStream: boolean;
      originalName?: string;
      requestSerialize(value: unknown): Buffer;
      responseSerialize(value: unknown): Buffer;
      responseDeserialize(bytes: Buffer): unknown;
    };
    const shape = (m: Method) => ({ path: m.path, requestStream: m.requestStream, responseStream: m.responseStream, originalName: m.originalName });
    for (const name of ['milvus.proto.milvus.MilvusService', 'milvus.proto.milvus.ClientTelemetryService']) {
      const ours = (sdk.getGRPCService({ serviceName: name }, options) as unknown as { service: Record<string, Method> }).service;
      const theirs = reference[name] as unknown as Record<string, Method>;
      expect(Object.keys(ours)).toEqual(Object.keys(theirs));
      expect(Object.keys(ours).length).toBeGreaterThan(0);
      for (const method of Object.keys(theirs)) expect(shape(ours[method]!)).toEqual(shape(theirs[method]!));
    }
    const milvus = (sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, options) as unknown as { service: Record<string, Method> })
      .service;
    const theirs = reference['milvus.proto.milvus.MilvusService'] as unknown as Record<string, Method>;
    // The calls an open and an edit make, with the values they send, and a described collection as the server answers.
    const requests: [string, object][] = [
      ['DescribeCollection', { collection_name: 'memdir_abc', db_name: 'default' }],
      ['GetLoadState', { collection_name: 'memdir_abc' }],
      ['ShowPartitions', { collection_name: 'memdir_abc', type: 'All' }],
      ['Delete', { collection_name: 'memdir_abc', expr: 'chunk_id in ["a", "b"]', expr_template_values: {} }],
      ['Flush', { collection_names: ['memdir_abc'] }],
      [
        'Upsert',
        { collection_name: 'memdir_abc', num_rows: 1, fields_data: [{ type: 'VarChar', field_name: 'chunk_id', scalars: { string_data: { data: ['a'] } } }] },
      ],
    ];
    for (const [method, request] of requests) {
      expect(milvus[method]!.requestSerialize(request)).toEqual(theirs[method]!.requestSerialize(request));
    }
    const described = theirs.DescribeCollection!.responseSerialize({
      status: { error_code: 'Success', code: 0, reason: '' },
      schema: {
        name: 'memdir_abc',
        fields: [{ name: 'chunk_id', data_type: 'VarChar', is_primary_key: true, type_params: [{ key: 'max_length', value: '64' }] }],
      },
      properties: [{ key: 'memdir.schema', value: '7' }],
      collectionID: '449',
      created_timestamp: '18446744073709551615',
    });
    expect(milvus.DescribeCollection!.responseDeserialize(described)).toEqual(theirs.DescribeCollection!.responseDeserialize(described));
    expect(() => milvus.DescribeCollection!.requestSerialize([])).toThrow(/expected object/);
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

  it("hands an insert's float vectors to the encoder as one Float32Array of all rows, to the same wire bytes", async () => {
    const dim = 4;
    const client = new sdk.MilvusClient({ address: '127.0.0.1:1', __SKIP_CONNECT__: true }) as unknown as {
      describeCollection: () => Promise<unknown>;
      channelPool: unknown;
      insert: (req: { collection_name: string; data: Record<string, unknown>[] }) => Promise<unknown>;
    };
    // The collection as describeCollection formats it; the gRPC call itself is a fake client of a fake pool.
    client.describeCollection = async () => ({
      status: { error_code: 'Success', code: 0 },
      schema: {
        enable_dynamic_field: false,
        fields: [
          { name: 'id', data_type: 'VarChar', element_type: 'None', is_primary_key: true, autoID: false },
          { name: 'vector', data_type: 'FloatVector', element_type: 'None', dim: String(dim), autoID: false },
        ],
      },
      properties: [],
      update_timestamp_str: '1',
    });
    let sent: { fields_data: { field_name: string; vectors?: { float_vector: { data: unknown } } }[] } | undefined;
    const fake = {
      Insert: (params: typeof sent, _options: unknown, done: (err: null, res: unknown) => void) => {
        sent = params;
        done(null, { status: { error_code: 'Success', code: 0 }, IDs: {}, succ_index: [], err_index: [] });
      },
    };
    client.channelPool = { acquire: async () => fake, release: () => undefined };
    const rows = [
      { id: 'a', vector: [0.1, -0.2, 0.3, 1e40] },
      { id: 'b', vector: [-0, 0.5, Number.NaN, 2 / 3] },
    ];
    await client.insert({ collection_name: 'c', data: rows });
    const data = sent!.fields_data.find((f) => f.field_name === 'vector')!.vectors!.float_vector.data;
    expect(data).toBeInstanceOf(Float32Array);
    expect([...(data as Float32Array)]).toEqual(rows.flatMap((r) => r.vector.map(Math.fround)));

    // The request serializes to the bytes the same request with a plain array (the generated path) gives.
    const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
    const insert = (
      sdk.getGRPCService({ serviceName: 'milvus.proto.milvus.MilvusService' }, options) as unknown as {
        service: { Insert: { requestSerialize(value: unknown): Buffer } };
      }
    ).service.Insert;
    const asArray = {
      ...sent,
      fields_data: sent!.fields_data.map((f) => (f.vectors ? { ...f, vectors: { ...f.vectors, float_vector: { data: [...(data as Float32Array)] } } } : f)),
    };
    expect(insert.requestSerialize(sent)).toEqual(insert.requestSerialize(asArray));
  });

  describe("the retry interceptor's log", () => {
    afterEach(() => {
      vi.restoreAllMocks();
      sdk.logger.silent = true;
    });

    /** Sends `message` through the SDK's retry interceptor to a fake next call; returns what reached it. */
    function sendThrough(message: unknown): unknown[] {
      const reached: unknown[] = [];
      const next = {
        start: () => undefined,
        sendMessageWithContext: (_context: unknown, m: unknown) => reached.push(m),
        sendMessage: (m: unknown) => reached.push(m),
        startRead: () => undefined,
        halfClose: () => undefined,
        cancelWithStatus: () => undefined,
        getPeer: () => '',
      };
      const interceptor = (sdk as unknown as { getRetryInterceptor(o: object): (options: object, nextCall: () => unknown) => unknown }).getRetryInterceptor({});
      const call = interceptor(
        { method_definition: { path: '/milvus.proto.milvus.MilvusService/Insert' }, deadline: new Date(Date.now() + 60_000) },
        () => next,
      ) as {
        start(metadata: unknown, listener: object): void;
        sendMessage(m: unknown): void;
      };
      const grpc = createRequire(require.resolve('@zilliz/milvus2-sdk-node'))('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
      call.start(new grpc.Metadata(), {});
      call.sendMessage(message);
      return reached;
    }

    it('writes no request out as JSON while the logger is silent, and the request still goes on', () => {
      const stringify = vi.spyOn(JSON, 'stringify');
      const message = { collection_name: 'c', num_rows: 500 };
      expect(sendThrough(message)).toEqual([message]);
      expect(stringify.mock.calls.filter(([value]) => value === message)).toHaveLength(0);
    });

    it('still writes it out when the logger takes debug lines', () => {
      sdk.logger.silent = false;
      const level = sdk.logger.level;
      sdk.logger.level = 'debug';
      // The debug line goes to the test's output (the SDK's console transport).
      const stringify = vi.spyOn(JSON, 'stringify');
      const message = { collection_name: 'c', num_rows: 500 };
      try {
        expect(sendThrough(message)).toEqual([message]);
      } finally {
        sdk.logger.level = level;
      }
      expect(stringify.mock.calls.filter(([value]) => value === message)).toHaveLength(1);
    });
  });
});
