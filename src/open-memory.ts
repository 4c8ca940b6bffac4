// The composition root: the only place that turns configuration into adapters and wires the services. Opening a
// root is the sequence of steps in openMemory, each in its own file under open/.
import type { MemConfig } from './config.js';
import type { Memory } from './services/facade.js';
import { catchUp } from './open/catch-up.js';
import { connect } from './open/connect.js';
import { buildDeps } from './open/deps.js';
import { setUpMergeDriver } from './open/merge-driver.js';
import { openModels } from './open/models.js';
import type { WiringOptions } from './open/options.js';
import { prepareRoot } from './open/state.js';

export type { OpenOptions, WiringOptions } from './open/options.js';
export { stateLayoutOf } from './open/state.js';
export { findProject, openHookState, openMemoryFiles, openTextFiles, openTurnLedger, projectMemoryRoot, startCaptureWorker } from './open/light.js';
export { pruneOrphans } from './open/collections.js';
export { setUpMergeDriver, settleUnmergedMemory } from './open/merge-driver.js';

/** Opens the memory root described by `config`: the library's entry point. */
export async function openMemory(config: MemConfig, options: WiringOptions = {}): Promise<Memory> {
  // Checked and made before anything else is created (a root deleted under a long-lived process stays deleted).
  const layout = await prepareRoot(config, options);
  // The merge driver beside the connection (git calls while the servers start): no time of its own.
  const [connection, driver] = await Promise.all([
    connect(config, options, layout),
    config.git ? setUpMergeDriver(config.root, options.onLog, { existingRoot: options.existingRoot }) : undefined,
  ]);
  const models = await openModels(config, options, layout, connection);
  const deps = await buildDeps(config, layout, connection, models);
  options.onDeps?.(deps);
  // Loaded here, not at the top: the light exports (open/light.ts: agents' hooks, server status) skip every use case.
  const { createMemory } = await import('./services/facade.js');
  const memory = createMemory(deps, async () => {
    await deps.access.settle();
    await models.index.close();
    await deps.cache.close?.();
    await models.second?.cache.close?.();
    await connection.release();
  });
  const at = { root: config.root, layout, rebuild: connection.rebuild, head: driver?.head, manifestExists: () => deps.manifest.exists() };
  await catchUp(memory, at, options.onLog);
  return memory;
}
