#!/usr/bin/env node
// The git merge driver for memory files (git runs it per file; see src/cli/merge-driver.ts): no CLI, no index.
const { mergeDriver } = await import('../dist/cli/merge-driver.js');
process.exitCode = mergeDriver(process.argv.slice(2));
