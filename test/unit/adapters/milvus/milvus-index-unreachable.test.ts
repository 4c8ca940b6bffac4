// A Milvus address that another program holds (an HTTP/1 server took the port of a server that exited) fails the call
// with memdir's message, and nothing is left to crash the process as an unhandled rejection (the SDK's own connect).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MilvusIndex } from '../../../../src/adapters/milvus/milvus-index.js';
import { IndexUnavailableError } from '../../../../src/errors.js';

describe('MilvusIndex at an address that is not a Milvus', () => {
  let http: Server;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    http = createServer((_req, res) => res.end('not grpc'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await new Promise((resolve) => http.close(resolve));
  });

  it('open rejects with IndexUnavailableError naming the address and the hint', async () => {
    const { port } = http.address() as AddressInfo;
    const index = new MilvusIndex({ address: `127.0.0.1:${port}`, token: 't', collection: 'probe', unavailableHint: 'run it again' });
    const err = await index.open({ name: 'm', dimension: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexUnavailableError);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect((err as Error).message).toContain('run it again');
    await index.close();
    // Give a stray rejection of the SDK's connect time to surface.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unhandled).toEqual([]);
  });
});
