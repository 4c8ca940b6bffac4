// The collection schema of a memory index: one row per unit or window, user as partition key, BM25 + dense vector.
import { randomUUID } from 'node:crypto';

import { MAX_HEADING_CHARS, MAX_PATH_CHARS, MAX_TAGS } from '../../memory/model.js';
import { milvusSdk } from './sdk.js';

const { DataType, FunctionType } = milvusSdk;

export const EMBEDDING_PROPERTY = 'memdir.embedding';
export const SCHEMA_PROPERTY = 'memdir.schema';
// A random id given to a collection when it is created: a manifest records the one it describes, so a collection
// dropped and created anew (its rows gone, e.g. the servers' data deleted) is told from the one that has the rows.
export const INSTANCE_PROPERTY = 'memdir.instance';
// 2: BM25 runs on `lexical` (stemmed keyword form), not on `content`. 3: rows are units and context
// windows (`kind`), no longer ~1,500-character chunks.
export const SCHEMA_VERSION = '3';

/** Scalar fields returned with hits (everything but the vectors). */
export const OUTPUT_FIELDS = [
  'chunk_id',
  'kind',
  'memory_id',
  'user',
  'type',
  'status',
  'importance',
  'created',
  'updated',
  'expires',
  'path',
  'heading',
  'line_start',
  'line_end',
  'tags',
  'content',
];

/** A window's fields: its span and its file's eligibility; its text is never shown, so it is not fetched. */
export const WINDOW_OUTPUT_FIELDS = OUTPUT_FIELDS.filter((f) => f !== 'heading' && f !== 'content');

/** The second dense field: units' bare text by a second model; windows hold a placeholder, never searched. */
export const SECOND_FIELD = 'vector2';

export function collectionSchema(collection: string, dimension: number, embedding: string, secondDimension?: number) {
  const second = secondDimension
    ? {
        fields: [{ name: SECOND_FIELD, data_type: DataType.FloatVector, dim: secondDimension }],
        index_params: [{ field_name: SECOND_FIELD, index_type: 'HNSW', metric_type: 'COSINE', params: { M: 16, efConstruction: 200 } }],
      }
    : { fields: [], index_params: [] };
  return {
    collection_name: collection,
    properties: { [EMBEDDING_PROPERTY]: embedding, [SCHEMA_PROPERTY]: SCHEMA_VERSION, [INSTANCE_PROPERTY]: randomUUID() },
    fields: [
      { name: 'chunk_id', data_type: DataType.VarChar, is_primary_key: true, max_length: 64 },
      // 'unit' (ranked and returned) or 'window' (neighbouring units: only a signal for them).
      { name: 'kind', data_type: DataType.VarChar, max_length: 8 },
      { name: 'memory_id', data_type: DataType.VarChar, max_length: 256 },
      // Partition key: a search scoped to one user only touches that user's partition.
      { name: 'user', data_type: DataType.VarChar, max_length: 128, is_partition_key: true },
      { name: 'type', data_type: DataType.VarChar, max_length: 16 },
      { name: 'status', data_type: DataType.VarChar, max_length: 16 },
      { name: 'importance', data_type: DataType.Float },
      { name: 'created', data_type: DataType.Int64 },
      { name: 'updated', data_type: DataType.Int64 },
      { name: 'expires', data_type: DataType.Int64 },
      { name: 'path', data_type: DataType.VarChar, max_length: MAX_PATH_CHARS },
      { name: 'heading', data_type: DataType.VarChar, max_length: MAX_HEADING_CHARS },
      { name: 'line_start', data_type: DataType.Int64 },
      { name: 'line_end', data_type: DataType.Int64 },
      { name: 'tags', data_type: DataType.Array, element_type: DataType.VarChar, max_capacity: MAX_TAGS, max_length: 128 },
      { name: 'content', data_type: DataType.VarChar, max_length: 65535 },
      // The keyword form of content (memory/lexical.ts: stemmed English, no stop words). jieba segments
      // Chinese and splits other scripts on word boundaries; Milvus Lite has no stemming filter of its own.
      {
        name: 'lexical',
        data_type: DataType.VarChar,
        max_length: 65535,
        enable_analyzer: true,
        analyzer_params: { tokenizer: 'jieba', filter: ['lowercase'] },
      },
      { name: 'sparse', data_type: DataType.SparseFloatVector },
      { name: 'vector', data_type: DataType.FloatVector, dim: dimension },
      ...second.fields,
    ],
    functions: [{ name: 'content_bm25', type: FunctionType.BM25, input_field_names: ['lexical'], output_field_names: ['sparse'], params: {} }],
    index_params: [
      { field_name: 'vector', index_type: 'HNSW', metric_type: 'COSINE', params: { M: 16, efConstruction: 200 } },
      { field_name: 'sparse', index_type: 'SPARSE_INVERTED_INDEX', metric_type: 'BM25' },
      ...second.index_params,
    ],
  };
}
