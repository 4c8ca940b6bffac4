// Preload (`node --import`) for e2e tests: every module a `mem` process loads is appended, one URL a line, to the
// file named by MEMDIR_TEST_MODULE_TRACE (written from the loader's thread, synchronously: nothing lost at exit).
import { register } from 'node:module';

register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: process.env.MEMDIR_TEST_MODULE_TRACE });
