#!/usr/bin/env node
// The `mem` executable: a shim that runs the compiled CLI.
import { main } from '../dist/cli/main.js';

const code = await main(process.argv);
// Exit once stdout is flushed, so a lingering network handle can never keep the command alive.
process.stdout.write('', () => process.exit(code));
