"""Time limits, enforced by the job's shepherd: SIGTERM to the whole job at
the limit (a script's trap sees it), SIGKILL KillWait seconds later for a job
that ignores it, state TIMEOUT within a second of the limit (Slurm takes up
to 30 s), through a kill -9 and restart of noded; and signals from scancel
still reach a job whose limit is armed."""

import re
import time

from conftest import wait_for

# Stamps its start, and the moment SIGTERM arrives; then waits for more.
TRAP_SCRIPT = """#!/bin/bash
date +%s.%N > t_start
trap 'date +%s.%N > t_term; echo got TERM' TERM
echo started
sleep 60 &
wait
echo after wait
"""


def stamp(c, name):
    return float((c.work / name).read_text())


def elapsed_s(job):
    """EndTime - StartTime as scontrol shows them (second resolution)."""
    fmt = "%Y-%m-%dT%H:%M:%S"
    return (time.mktime(time.strptime(job["EndTime"], fmt)) -
            time.mktime(time.strptime(job["StartTime"], fmt)))


def test_three_second_limit_times_out_with_sigterm_first(make_cluster):
    c = make_cluster(nodes=1)
    c.write("limited.sh", TRAP_SCRIPT)
    jid = c.sbatch("-t", "0:3", "-o", "lim.out", "limited.sh")
    job = c.wait_done(jid, timeout=20)
    ended_seen = time.time()
    # noded read the shepherd's verdict (and sends it in job.complete).
    assert f"job={jid} ended: exit_code=0 signal=0 (time limit)" in c.log("n1")
    assert job["JobState"] == "TIMEOUT", job
    out = (c.work / "lim.out").read_text()
    # Slurm's line (stdout and stderr share the file) before the trap's
    assert re.match(rf"started\nslurmstepd: error: \*\*\* JOB {jid} ON n1 CANCELLED AT "
                    r"\S+ DUE TO TIME LIMIT \*\*\*\ngot TERM\n", out), out
    # TERM at the limit (counted from ctld's start, which is a little
    # before the script's), not a second late, and the end seen promptly.
    ran = stamp(c, "t_term") - stamp(c, "t_start")
    assert 2.0 <= ran <= 3.5, ran
    assert ended_seen - stamp(c, "t_term") < 2.0
    assert 3 <= elapsed_s(job) <= 4, job


def test_job_ignoring_term_is_killed_after_kill_wait(make_cluster):
    c = make_cluster(nodes=1, sets={"KillWait": "2"})
    c.write("stubborn.sh", "#!/bin/bash\n"
            "trap 'echo got TERM' TERM\n"
            "date +%s.%N > t_start\n"
            # written aside then renamed: SIGKILL must never leave it empty
            "while :; do date +%s.%N > t_tick.new; mv t_tick.new t_tick; sleep 0.1; done\n")
    jid = c.sbatch("-t", "0:2", "-o", "stub.out", "stubborn.sh")
    job = c.wait_done(jid, timeout=20)
    assert job["JobState"] == "TIMEOUT", job
    assert "got TERM" in (c.work / "stub.out").read_text()
    # It went on for KillWait after the TERM, then stopped for good.
    lived = stamp(c, "t_tick") - stamp(c, "t_start")
    assert 2.9 <= lived <= 4.6, lived
    last = (c.work / "t_tick").read_text()
    time.sleep(0.5)  # the loop ticked every 0.1 s while alive
    assert (c.work / "t_tick").read_text() == last


def test_limit_holds_through_a_noded_restart(make_cluster):
    c = make_cluster(nodes=1)
    c.write("limited.sh", TRAP_SCRIPT)
    jid = c.sbatch("-t", "0:4", "-o", "lim.out", "limited.sh")
    c.wait_state(jid, "RUNNING")
    wait_for(lambda: (c.work / "t_start").exists(), 10, what="the job to start")
    c.kill9("n1")
    c.up()
    job = c.wait_done(jid, timeout=20)
    assert job["JobState"] == "TIMEOUT", job
    ran = stamp(c, "t_term") - stamp(c, "t_start")
    assert 2.9 <= ran <= 4.5, ran


def test_signals_reach_a_job_under_a_limit(make_cluster):
    c = make_cluster(nodes=1)
    c.write("usr1.sh", "#!/bin/bash\n"
            "trap 'echo got USR1' USR1\n"
            "echo ready\n"
            "while :; do sleep 0.1; done\n")
    jid = c.sbatch("-t", "5", "-o", "usr1.out", "usr1.sh")
    c.wait_state(jid, "RUNNING")
    out = c.work / "usr1.out"
    wait_for(lambda: out.exists() and "ready" in out.read_text(), 10,
             what="the job to be ready")
    c.ok("scancel", "-f", "-s", "USR1", str(jid))
    wait_for(lambda: "got USR1" in out.read_text(), 10, what="USR1 to arrive")
    c.ok("scancel", str(jid))
    assert c.wait_done(jid)["JobState"] == "CANCELLED"


def test_zero_limit_means_none(make_cluster):
    c = make_cluster(nodes=1)
    jid = c.sbatch("-t", "0", "--wrap", "sleep 1; echo done")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    assert job["TimeLimit"] == "UNLIMITED"
