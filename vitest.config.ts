// Four projects: fast pure-logic unit tests (`npm run test:fast`), integration tests of the adapters and services on
// the real Milvus Lite and model, end-to-end tests that run the real `bin/mem`, and the Milvus contract suite against
// MILVUS_URI. They run one group after another, so the two heavy ones never share the two cores.
import { defineConfig } from 'vitest/config';

// Each integration or e2e file starts its own Milvus Lite and model server: two files at a time fit two cores.
const realParts = {
  // Provisions the runtime once and stops every server the project started.
  globalSetup: ['test/support/global-setup.ts'],
  maxWorkers: 2,
  testTimeout: 120_000,
  hookTimeout: 300_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/architecture.test.ts'],
          // Unit tests first; projects with different worker limits need their own group.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...realParts, sequence: { groupOrder: 1 } },
      },
      {
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...realParts, sequence: { groupOrder: 2 } },
      },
      {
        test: {
          name: 'milvus',
          // The Milvus contract suite against the Milvus named by MILVUS_URI (MILVUS_TOKEN): `npm run test:milvus`;
          // .ci/run starts a plain Milvus Lite server for it. Without MILVUS_URI it is skipped and says so; the
          // integration project runs it on a Milvus Lite server of its own.
          include: ['test/integration/any-milvus.test.ts'],
          env: { MEM_TEST_MILVUS: 'given' },
          globalSetup: ['test/support/global-setup.ts'],
          sequence: { groupOrder: 3 },
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
