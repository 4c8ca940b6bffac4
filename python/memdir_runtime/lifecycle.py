"""When a shared server stops by itself.

Servers shared by every root of the user must not run for ever, so each checks every 5 s that its records folder still
exists, that some root it serves is still on disk and not released (`mem server stop`), and that it was called recently
or a live memdir process holds a lease; otherwise it stops cleanly (SIGINT to itself, as `mem server stop` does; killed
after 20 s should that hang). A launcher calls start() once and touch() on every call it serves.

A memdir process registers its root and takes a lease before it looks for the server, so the server writes its stopping
marker before it looks at roots and leases a second time: either it sees the newcomer and serves on, or the newcomer
sees the marker and waits for it to exit instead of using a server about to go away.

The environment variables' names are memdir's (src/adapters/runtime/owner-only.ts); each is removed from the
environment once read, so nothing the server starts inherits it.
"""

import json
import os
import signal
import threading
import time

WATCH_ENV = "MEMDIR_SERVER_WATCH"
ROOTS_ENV = "MEMDIR_SERVER_ROOTS"
LEASES_ENV = "MEMDIR_SERVER_LEASES"
IDLE_ENV = "MEMDIR_SERVER_IDLE"
STOPPING_PREFIX = "stopping-"
CHECK_EVERY_S = 5
HARD_STOP_AFTER_S = 20


class Lifecycle:
    """The stop rules of one server, from the folders and idle time memdir handed it."""

    def __init__(self, watch="", roots="", leases="", idle=0.0, now=time.monotonic):
        self.watch = watch
        self.roots = roots
        self.leases = leases
        self.idle = idle
        self.now = now
        self.last_call = now()
        self.mark = os.path.join(watch, "%s%d" % (STOPPING_PREFIX, os.getpid())) if watch else ""

    @classmethod
    def from_environment(cls, environ=None):
        environ = os.environ if environ is None else environ
        return cls(
            watch=environ.pop(WATCH_ENV, ""),
            roots=environ.pop(ROOTS_ENV, ""),
            leases=environ.pop(LEASES_ENV, ""),
            idle=float(environ.pop(IDLE_ENV, "0") or 0),
        )

    def touch(self):
        self.last_call = self.now()

    def root_in_use(self):
        if not os.path.isdir(self.roots):
            return True  # started outside the registry of roots (a test's or a benchmark's own server)
        for name in _names(self.roots):
            try:
                with open(os.path.join(self.roots, name)) as f:
                    entry = json.load(f)
            except (OSError, ValueError):
                return True  # unreadable: not a reason to stop
            try:
                with open(os.path.join(entry.get("stateDir") or "", "root-id")) as f:
                    same = "memdir_" + f.read().strip() == entry.get("collection")
            except OSError:
                same = False  # the root deleted or moved away
            if same and not entry.get("released"):
                return True
        return False

    def leased(self):
        return any(n.split("-")[0].isdigit() and _alive(int(n.split("-")[0])) for n in _names(self.leases))

    def why_stop(self):
        if self.watch and not os.path.isdir(self.watch):
            return "records folder gone"
        if self.roots and not self.root_in_use():
            return "no root left to serve"
        if self.idle > 0 and self.now() - self.last_call > self.idle and not self.leased():
            return "idle"
        return None

    def decided(self):
        """The reason to stop, checked again after the stopping marker is written (None: serve on, marker removed)."""
        why = self.why_stop()
        if not why or not self.mark or not os.path.isdir(self.watch):
            return why
        try:
            open(self.mark, "w").close()
        except OSError:
            return why
        why = self.why_stop()
        if not why:
            try:
                os.remove(self.mark)
            except OSError:
                pass
        return why

    def run(self):
        while True:
            time.sleep(CHECK_EVERY_S)
            why = self.decided()
            if why:
                print("stopping: %s" % why, flush=True)
                hard = threading.Timer(HARD_STOP_AFTER_S, lambda: os._exit(0))
                hard.daemon = True
                hard.start()
                os.kill(os.getpid(), signal.SIGINT)
                return


def _names(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except OSError:
        return True


def start(environ=None):
    """Reads the rules from the environment and checks them in a daemon thread; returns the Lifecycle (call touch())."""
    lifecycle = Lifecycle.from_environment(environ)
    threading.Thread(target=lifecycle.run, daemon=True).start()
    return lifecycle
