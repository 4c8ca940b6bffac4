// Covers patches/@zilliz+milvus2-sdk-node+*.patch (applied by `npm install` through patch-package): loading the SDK
// leaves its bulk writer unloaded, a client builds the gRPC package definition once for its two services, and the
// protobuf roots only a search or a collection's creation needs are built on first use.
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
});
