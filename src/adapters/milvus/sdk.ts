// The Milvus SDK, loaded with require: an ESM import of this CommonJS package costs each process ~0.1 s more CPU.
import { createRequire } from 'node:module';

import type * as Sdk from '@zilliz/milvus2-sdk-node';

/**
 * Named ESM imports of a CommonJS module make Node lex its source for its exports, and the SDK's index re-exports
 * some twenty modules that are lexed in turn; require skips that (an edit's worker thread loads the SDK on the way
 * to its first write, ~100-150 ms of CPU per process). Types still come from the package.
 */
export const milvusSdk = createRequire(import.meta.url)('@zilliz/milvus2-sdk-node') as typeof Sdk;
