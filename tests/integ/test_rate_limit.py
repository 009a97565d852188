"""Limits that keep the controller up (issue 13, item 4).

The per-user RPC rate limit (SlurmctldParameters=rl_enable, a token bucket
per uid with Slurm's semantics): while drvusr1 floods ctld from several
processes, drvusr2's squeue answers well within a generous deadline every
time and is never limited itself; drvusr1's commands are slowed to the
bucket's rate (ctld logs each refusal as Slurm does), retried quietly, and
none fails; root (the cluster's owner here) is never limited; without
rl_enable nothing is. MaxJobCount refuses a submit past it with Slurm's
message (array tasks count one each, also after a restart), and a batch
script over SchedulerParameters=max_script_size is refused; nothing is
created by either. Needs root (the test users); skipped cleanly elsewhere."""

import re
import subprocess
import time

import pytest

from conftest import wait_for

BUCKET, RATE = 10, 2
RL = f"rl_enable,rl_bucket_size={BUCKET},rl_refill_rate={RATE},rl_refill_period=1"
DEADLINE = 10  # seconds a squeue of the other user may take, generously
# One flooding process: squeue (a read; a root cluster takes jobs only from
# root today) until the stop file exists, one exit status a line.
FLOOD = 'while [ ! -e "$0" ]; do squeue -h >/dev/null; echo $?; done'


def limited_lines(c, uid):
    return re.findall(rf"RPC rate limit exceeded by uid {uid} with (\S+) from "
                      r"127\.0\.0\.1\S*, telling to back off", c.log())


def as_user(c, user, *cmd, timeout=60):
    return c.run(*user.prefix, *cmd, timeout=timeout)


def flood(c, user, stop, procs):
    return [subprocess.Popen([*user.prefix, "bash", "-c", FLOOD, str(stop)],
                             cwd=c.work, env=c.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
            for _ in range(procs)]


def test_a_flooding_user_is_slowed_and_the_others_still_answer(make_cluster,
                                                               test_users):
    u1, u2 = test_users
    c = make_cluster(nodes=1, sets={"SlurmctldParameters": RL})
    assert "RPC rate limiting enabled" in c.log()
    jid = c.sbatch("-H", "--wrap", "true")
    pid = c.pid("ctld")
    stop = c.dir / "stop-flood"
    t0 = time.monotonic()
    workers = flood(c, u1, stop, 6)
    try:
        wait_for(lambda: limited_lines(c, u1.uid), 30, what="drvusr1 to be limited")
        # drvusr2 polls at an ordinary pace while drvusr1 floods: every
        # squeue answers, quickly, and drvusr2's own bucket is untouched.
        for _ in range(8):
            s = time.monotonic()
            rc, out, err = as_user(c, u2, "squeue", "-h", "-o", "%i", timeout=DEADLINE)
            assert time.monotonic() - s < DEADLINE
            assert (rc, out.split(), err) == (0, [str(jid)], "")
            time.sleep(0.2)
    finally:
        stop.touch()
        results = [w.communicate(timeout=90) for w in workers]
    elapsed = time.monotonic() - t0
    # slowed, not broken: every command of the flood ended well and said
    # nothing (the retries are quiet), but no more were served than the
    # bucket holds plus what it refilled meanwhile
    statuses = [line for out, _ in results for line in out.split()]
    assert set(statuses) == {"0"}, statuses
    assert [err for _, err in results] == [""] * 6
    assert [w.returncode for w in workers] == [0] * 6
    assert 0 < len(statuses) <= BUCKET + RATE * (elapsed + 2), (len(statuses), elapsed)
    assert set(limited_lines(c, u1.uid)) == {"job.query"}
    assert limited_lines(c, u2.uid) == []
    assert c.pid("ctld") == pid


def test_root_is_never_limited_and_a_poll_is_only_slowed(make_cluster, test_users):
    u1, _ = test_users
    c = make_cluster(nodes=1, sets={"SlurmctldParameters":
                                    "rl_enable,rl_bucket_size=1,rl_refill_rate=1"})
    for _ in range(20):  # the cluster's owner (root here), like SlurmUser
        c.ok("squeue", "-h")
    assert limited_lines(c, 0) == []
    # A bucket of one: drvusr1's second request in the same second is
    # refused, its squeue sleeps a second and tries again, and succeeds.
    s = time.monotonic()
    for _ in range(3):
        assert as_user(c, u1, "squeue", "-h") == (0, "", "")
    assert time.monotonic() - s >= 1
    assert limited_lines(c, u1.uid)


def test_without_rl_enable_nothing_is_limited(make_cluster, test_users):
    u1, _ = test_users
    c = make_cluster(nodes=1, sets={"SlurmctldParameters": "rl_bucket_size=1"})
    stop = c.dir / "stop-flood"
    workers = flood(c, u1, stop, 4)
    try:
        wait_for(lambda: sum(1 for w in workers if w.poll() is None) == 4, 5)
        time.sleep(2)  # a burst far past the bucket, had it been enabled
    finally:
        stop.touch()
        results = [w.communicate(timeout=60) for w in workers]
    statuses = [line for out, _ in results for line in out.split()]
    assert len(statuses) > 40 and set(statuses) == {"0"}
    assert "rate limit" not in c.log()


REFUSED = "sbatch: error: Batch job submission failed: {}\n"


def jobs(c):
    """Every job and array task ctld holds, as squeue -r lists them."""
    return c.ok("squeue", "-h", "-r", "-o", "%i").split()


def refused(c, *args, message):
    before = jobs(c)
    rc, out, err = c.run("sbatch", *args)
    assert (rc, out, err) == (1, "", REFUSED.format(message))
    assert jobs(c) == before


def test_max_job_count(make_cluster):
    c = make_cluster(nodes=1, sets={"MaxJobCount": "4"})
    assert re.search(r"^MaxJobCount += 4$", c.ok("scontrol", "show", "config"), re.M)
    a = c.sbatch("-H", "--wrap", "true")
    c.sbatch("-H", "--wrap", "true")
    # each task of an array counts, as in Slurm
    refused(c, "-H", "--array=1-3", "--wrap", "true",
            message="MaxJobCount limit reached")
    assert "MaxJobCount limit from slurm.conf reached (4)" in c.log()
    c.sbatch("-H", "--array=1-2", "--wrap", "true")
    refused(c, "-H", "--wrap", "true", message="MaxJobCount limit reached")
    # an ended job counts until MinJobAge lets it go, as in Slurm
    c.ok("scancel", str(a))
    c.wait_state(a, "CANCELLED")
    refused(c, "-H", "--wrap", "true", message="MaxJobCount limit reached")
    # the count comes back with the jobs after a restart
    c.kill9("ctld")
    c.up()
    refused(c, "-H", "--wrap", "true", message="MaxJobCount limit reached")
    assert len(jobs(c)) == 3 and c.state(a) == "CANCELLED"  # ... and a, ended


def test_max_script_size(make_cluster):
    c = make_cluster(nodes=1, sets={"SchedulerParameters": "max_script_size=200"})
    body = "#!/bin/sh\n#"
    at_limit = c.write("ok.sh", body + "x" * (199 - len(body)) + "\n")
    assert at_limit.stat().st_size == 200
    over = c.write("big.sh", body + "x" * (200 - len(body)) + "\n")
    refused(c, "-H", str(over),
            message="Pathname of a file, directory or other parameter too long")
    assert "strlen(script) too big (201 > 200)" in c.log()
    jid = c.sbatch("-H", str(at_limit))
    assert jobs(c) == [str(jid)]
