"""Bounded connections and caches (issue 10, item 5).

An ordinary local user floods ctld: hundreds of idle connections and
half-sent frames held open, then a stream of requests each with a fresh
credential (authd signs them freely for that user). Meanwhile the cluster
owner's squeue and sbatch keep answering: idle and half-frame connections
are closed after ConnAuthTimeout or evicted at MaxConnections, the
flooder's credentials fill only its own share of the nonce cache
(NonceCachePerUser), and ctld's log gets a bounded number of lines about
it. Needs root (to create the user); skipped cleanly elsewhere."""

import json
import os
import pathlib
import pwd
import subprocess
import re
import time

import pytest

from conftest import wait_for
from test_bad_input import ctld_port

FLOOD = pathlib.Path(__file__).with_name("flood_ctld.py")
USER = "drvflood"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for useradd")


@pytest.fixture(scope="session")
def flood_user():
    made = False
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", USER], check=True)
        made = True
    yield USER
    if made:
        subprocess.run(["userdel", USER], check=False)


def timed_ok(c, *cmd, deadline=15):
    t0 = time.monotonic()
    out = c.ok(*cmd, timeout=deadline)
    assert time.monotonic() - t0 < deadline
    return out


def test_a_flooding_user_does_not_lock_out_the_owner(make_cluster, flood_user):
    c = make_cluster(nodes=1, sets={"ConnAuthTimeout": "2", "MaxConnections": "64",
                                    "MaxConnectionsPerUser": "32",
                                    "NonceCacheSize": "600", "NonceCachePerUser": "200"})
    jid = c.sbatch("-H", "--wrap", "true")
    flood = subprocess.Popen(
        ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups",
         "/usr/bin/python3", str(FLOOD), str(ctld_port(c)),
         str(c.dir / "run" / "authd.sock"), "200", "100", "800"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert flood.stdout.readline().strip() == "holding"
        # While the flood of fresh credentials runs, the owner is served.
        jobs = [jid]
        while flood.poll() is None:
            assert str(jid) in timed_ok(c, "squeue", "-h", "-o", "%i")
            jobs.append(c.sbatch("-H", "--wrap", "true"))
        counts = json.loads(flood.stdout.readline())
    finally:
        flood.kill()
        flood.wait(timeout=10)
    assert len(jobs) > 1
    assert sorted(jobs) == c.job_ids()
    # The flood got its share and no more; the held connections were closed.
    assert 0 < counts["answered"] <= 200, counts
    assert counts["refused"] > 0, counts
    assert counts["held_closed"] == 300, counts
    # ... and the log stayed short: a few lines an interval, then a count.
    warnings = [line for line in c.log().splitlines() if "warning:" in line]
    assert 0 < len(warnings) < 30, warnings
    wait_for(lambda: re.search(r"\d+ more warnings about 127\.0\.0\.1 in the last \d+s "
                               r"were not logged", c.log()), 30,
             what="the count of the warnings left out")
