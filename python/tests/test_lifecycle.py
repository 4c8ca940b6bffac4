"""The shared servers' stop decision: a server that finds no reason to run writes its stopping marker before it looks
again, and takes the marker back if a memdir process came meanwhile."""

import json
import os

from memdir_runtime.lifecycle import STOPPING_PREFIX, Lifecycle


def server_home(tmp_path, roots=True):
    servers = tmp_path / "servers"
    (servers / "leases").mkdir(parents=True)
    if roots:
        (servers / "roots").mkdir()
    return Lifecycle(watch=str(servers), roots=str(servers / "roots"), leases=str(servers / "leases"))


def markers(lifecycle):
    return [n for n in os.listdir(lifecycle.watch) if n.startswith(STOPPING_PREFIX)]


def register_root(lifecycle, tmp_path, released=False, same=True):
    state = tmp_path / "root" / ".mem"
    state.mkdir(parents=True)
    (state / "root-id").write_text("abc\n")
    entry = {"stateDir": str(state), "collection": "memdir_abc" if same else "memdir_old", "released": released}
    with open(os.path.join(lifecycle.roots, "root.json"), "w") as f:
        json.dump(entry, f)


def test_no_root_left_to_serve_stops_and_leaves_the_marker_for_newcomers(tmp_path):
    lifecycle = server_home(tmp_path)
    assert lifecycle.decided() == "no root left to serve"
    assert markers(lifecycle) == ["%s%d" % (STOPPING_PREFIX, os.getpid())]


def test_a_reason_gone_on_the_second_look_serves_on_and_removes_the_marker(tmp_path):
    lifecycle = server_home(tmp_path)
    looks = iter(["no root left to serve", None])  # the newcomer registers between the two looks
    lifecycle.why_stop = lambda: next(looks)
    assert lifecycle.decided() is None
    assert markers(lifecycle) == []


def test_nothing_to_stop_for_writes_no_marker(tmp_path):
    lifecycle = server_home(tmp_path, roots=False)  # started outside the registry of roots
    assert lifecycle.decided() is None
    assert markers(lifecycle) == []


def test_a_root_in_use_keeps_it_a_released_or_replaced_one_does_not(tmp_path):
    lifecycle = server_home(tmp_path)
    register_root(lifecycle, tmp_path)
    assert lifecycle.why_stop() is None
    os.remove(os.path.join(lifecycle.roots, "root.json"))
    register_root(lifecycle, tmp_path / "released", released=True)
    assert lifecycle.why_stop() == "no root left to serve"
    os.remove(os.path.join(lifecycle.roots, "root.json"))
    register_root(lifecycle, tmp_path / "replaced", same=False)
    assert lifecycle.why_stop() == "no root left to serve"


def test_records_folder_gone_comes_first(tmp_path):
    lifecycle = server_home(tmp_path)
    lifecycle.watch = str(tmp_path / "deleted")
    assert lifecycle.why_stop() == "records folder gone"


def test_idle_stops_unless_a_live_process_holds_a_lease(tmp_path):
    clock = [100.0]
    lifecycle = server_home(tmp_path, roots=False)
    lifecycle.now = lambda: clock[0]
    lifecycle.idle = 10
    lifecycle.touch()
    clock[0] += 11
    assert lifecycle.why_stop() == "idle"
    open(os.path.join(lifecycle.leases, "%d-lease" % os.getpid()), "w").close()
    assert lifecycle.why_stop() is None
    lifecycle.touch()
    os.remove(os.path.join(lifecycle.leases, "%d-lease" % os.getpid()))
    assert lifecycle.why_stop() is None


def test_the_environment_is_read_once_and_emptied(tmp_path):
    environ = {"MEMDIR_SERVER_WATCH": "w", "MEMDIR_SERVER_ROOTS": "r", "MEMDIR_SERVER_LEASES": "l", "MEMDIR_SERVER_IDLE": "7.5", "OTHER": "x"}
    lifecycle = Lifecycle.from_environment(environ)
    assert (lifecycle.watch, lifecycle.roots, lifecycle.leases, lifecycle.idle) == ("w", "r", "l", 7.5)
    assert environ == {"OTHER": "x"}
