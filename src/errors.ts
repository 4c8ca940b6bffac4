// The one error vocabulary of memdir: every failure a user can see is one of these, with an exit code.

/** Base class: a message written for the person at the terminal, and the process exit code. */
export class MemError extends Error {
  readonly exitCode: number = 1;
  readonly code: string = 'MEM_ERROR';
}

/** The caller asked for something malformed (bad flag value, invalid id): exit code 2. */
export class UsageError extends MemError {
  override readonly exitCode = 2;
  override readonly code = 'USAGE';
}

/**
 * memdir broke one of its own rules: an adapter was handed what no use case should send, or a file memdir
 * just wrote could not be indexed. A bug or a broken environment, never the caller's typing: exit code 1.
 */
export class InternalError extends MemError {
  override readonly code = 'INTERNAL';
}

/** A failure whose details are already in the printed result (files skipped, problems found): exit 1 without a second message. */
export class ReportedFailure extends MemError {
  override readonly code = 'FILES_SKIPPED';
}

/** An error the search daemon reported, with the code and exit code it would have had in-process. */
export class DaemonError extends MemError {
  override readonly code: string;
  override readonly exitCode: number;
  constructor(error: { code: string; message: string; exitCode: number }) {
    super(error.message);
    this.code = error.code;
    this.exitCode = error.exitCode;
  }
}

/** Configuration that cannot work (bad env value, missing endpoint setting). */
export class ConfigError extends MemError {
  override readonly exitCode = 2;
  override readonly code = 'CONFIG';
}

/** A memory file that cannot be read as a memory; names the file and the line. */
export class InvalidMemoryError extends MemError {
  override readonly code = 'INVALID_MEMORY';
  constructor(
    readonly path: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${path}:${line}: ${reason}`);
  }
}

/**
 * A file whose scope is refused (its folder is not a valid user id, or its front matter names
 * another user than its folder): unlike other invalid files it keeps no rows, so it can never
 * speak for a user it does not belong to.
 */
export class MisplacedMemoryError extends InvalidMemoryError {}

export class NotFoundError extends MemError {
  override readonly code = 'NOT_FOUND';
}

/** Several files in one scope carry the id asked for: which one is meant cannot be guessed. */
export class DuplicateIdError extends MemError {
  override readonly code = 'DUPLICATE_ID';
}

/** The index (Milvus) could not be reached or refused an operation. */
export class IndexUnavailableError extends MemError {
  override readonly code = 'INDEX_UNAVAILABLE';
}

/** The index was built with another embedding model or dimension. */
export class ModelMismatchError extends MemError {
  override readonly code = 'MODEL_MISMATCH';
}

export class EmbeddingError extends MemError {
  override readonly code = 'EMBEDDING';
}

/** The configured LLM endpoint failed or answered something that is not JSON. */
export class LlmError extends MemError {
  override readonly code = 'LLM';
}

/** Installing or starting the embedded runtime (Python venv, Milvus Lite, local model) failed. */
export class RuntimeSetupError extends MemError {
  override readonly code = 'RUNTIME_SETUP';
}

/** The memory root's folder was deleted or moved away while a process used it (`mem watch`, `mem mcp`, the daemon). */
export class RootGoneError extends MemError {
  override readonly code = 'ROOT_GONE';
}

/** Another process holds the write lock for too long. */
export class LockTimeoutError extends MemError {
  override readonly code = 'LOCKED';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
