"""Node and daemon details (issue 12, item 6): SlurmdStartTime is noded's
start and LastBusyTime the last time the node had jobs; every daemon and
the admin tool take -V/--version and refuse an unknown option with usage
and exit 2; two `drover up` on one directory start it once; `drover
status` names the directory it describes."""

import fcntl
import os
import re
import subprocess
import time
from datetime import datetime

import pytest

from conftest import BIN, run, wait_for

DAEMONS = ["drover-ctld", "drover-noded", "drover-shepherd", "drover-authd"]


@pytest.mark.parametrize("prog", DAEMONS + ["drover"])
def test_version_and_unknown_option(prog):
    want = (r"drover \S+ \(slurm 22\.05\.8\)\n" if prog == "drover"
            else r"slurm 22\.05\.8 \(drover \S+\)\n")
    for flag in ("-V", "--version"):
        rc, out, err = run([BIN / prog, flag])
        assert rc == 0 and re.fullmatch(want, out) and err == "", (flag, out, err)
    # an unknown option: usage, exit 2, at once (drover-shepherd used to
    # spin at full CPU here: the timeout would fail the test)
    rc, out, err = run([BIN / prog, "--no-such-option"], timeout=10)
    assert rc == 2 and out == "", (rc, out, err)
    assert "Usage: " in err, err


def iso(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()


def node_times(c, name="n1"):
    f = c.show_node(name)
    return f["BootTime"], f["SlurmdStartTime"], f["LastBusyTime"]


def test_slurmd_start_time_and_last_busy_time(make_cluster):
    c = make_cluster(nodes=1)
    boot, start, busy = node_times(c)
    # noded's start: not the host's boot, not later than now
    started = os.stat(c.pidfile("n1")).st_mtime
    assert abs(iso(start) - started) <= 2, (start, started)
    assert iso(boot) < iso(start)
    assert iso(busy) >= iso(start)  # no job yet: since it registered

    jid = c.sbatch("--wrap", "sleep 1")
    end = c.wait_done(jid)["EndTime"]
    wait_for(lambda: iso(node_times(c)[2]) >= iso(end) - 1, 10, what="LastBusyTime")
    assert abs(iso(node_times(c)[2]) - iso(end)) <= 1

    # a restarted noded has a new start time; the host's boot time stays
    wait_for(lambda: time.time() >= iso(start) + 1.5, 5, what="a second to pass")
    c.kill9("n1")
    c.up()
    wait_for(lambda: node_times(c)[1] != start, 20, what="n1 to register again")
    boot2, start2, _ = node_times(c)
    assert boot2 == boot and iso(start2) > iso(start)


def test_status_names_its_directory(cluster):
    rc, out, err = cluster.drover("status", "--dir", cluster.dir)
    assert rc == 0, err
    assert out.splitlines()[0] == f"Cluster in {cluster.dir} (config {cluster.conf})"


def test_up_while_another_up_holds_the_directory(cluster):
    lock = cluster.dir / "run" / "up.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.write(fd, b"4242\n")
        rc, out, err = cluster.drover("up", "--dir", cluster.dir)
        assert (rc, out, err) == (
            1, "", "drover up: the cluster is being started by pid 4242\n")
    finally:
        os.close(fd)
    rc, out, err = cluster.drover("up", "--dir", cluster.dir)
    assert rc == 0, err


def test_two_ups_at_once_start_the_cluster_once(tmp_path):
    d = tmp_path / "c"
    env = {k: v for k, v in os.environ.items() if k != "DROVER_CONF"}
    cmd = [BIN / "drover", "up", "--dir", d, "--nodes", "1", "--set", "SlurmdTimeout=5"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        res = [(p.pid, *p.communicate(timeout=90)) for p in procs]
        codes = [p.returncode for p in procs]
        started = [err.count("started ctld") for _, _, err in res]
        assert sorted(started) == [0, 1], res
        winner = started.index(1)
        assert codes[winner] == 0
        loser_err = res[1 - winner][2]
        # the other either waited its turn behind the lock, or came after
        assert codes[1 - winner] in (0, 1), res
        if codes[1 - winner] == 1:
            assert loser_err == ("drover up: the cluster is being started by pid "
                                 f"{res[winner][0]}\n"), loser_err
    finally:
        run([BIN / "drover", "down", "--dir", d], env=env, timeout=90)
