// Three projects: fast pure-logic unit tests, integration/end-to-end tests on the real Milvus Lite and model, and the Milvus contract suite against MILVUS_URI.
import { defineConfig } from 'vitest/config';

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
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          // Provisions the runtime once and stops every server the suite started.
          globalSetup: ['test/support/global-setup.ts'],
          // Each file starts its own Milvus Lite and model server: two at a time fit two cores.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'milvus',
          // The Milvus contract suite against the Milvus named by MILVUS_URI (MILVUS_TOKEN): `npm run test:milvus`.
          // Without MILVUS_URI it is skipped and says so; the integration project runs it on its own Milvus Lite.
          include: ['test/integration/any-milvus.test.ts'],
          env: { MEM_TEST_MILVUS: 'given' },
          globalSetup: ['test/support/global-setup.ts'],
          sequence: { groupOrder: 2 },
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
