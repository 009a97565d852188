"""--signal=[{R|B}:]SIG[@secs] before the time limit (sent by the shepherd,
so it holds when noded dies), scancel --signal with -b / -f as Slurm
documents them, --time-min, and a malformed --signal refused."""
import time

from conftest import wait_for

# A shell that notes what it gets, with one child that notes what it gets.
TRAPS = """#!/bin/bash
trap 'echo "shell $(date +%s.%N)" >> shell.log' USR1
bash -c "trap 'echo child >> child.log' USR1; while :; do sleep 0.1; done" &
echo ready > ready
while :; do sleep 0.1; done
"""


def test_batch_signal_before_timeout_lets_the_script_checkpoint(make_cluster):
    c = make_cluster(nodes=1, sets={"SlurmdTimeout": "60"})
    c.write("ckpt.sh", "#!/bin/bash\n"
            "#SBATCH --signal=B:USR1@5\n"
            "#SBATCH -t 0:10\n"
            "trap 'echo saved step 42 > ckpt' USR1\n"
            "bash -c \"trap 'echo child >> child.log' USR1; "
            "while :; do sleep 0.1; done\" &\n"
            "echo ready > ready\n"
            "while :; do sleep 0.1; done\n")
    jid = c.sbatch("ckpt.sh")  # --signal from the #SBATCH lines
    wait_for(lambda: (c.work / "ready").exists(), 20, what="the job to start")
    started = time.monotonic()
    # The shepherd sends it, not noded: killing noded must not lose it.
    c.kill9("n1")
    ckpt = c.work / "ckpt"
    wait_for(lambda: ckpt.exists() and ckpt.read_text(), 20, what="the checkpoint")
    early = time.monotonic() - started
    assert c.state(jid) == "RUNNING", "the checkpoint came only at the end"
    assert early > 3, f"USR1 came {early:.1f}s after the start, not 5s before the end"
    assert ckpt.read_text() == "saved step 42\n"
    c.up()  # noded back, to report the end
    job = c.wait_done(jid, timeout=40)
    assert job["JobState"] == "TIMEOUT", job
    # B: is the batch shell only: its child never got USR1.
    assert not (c.work / "child.log").exists()


def test_signal_without_b_reaches_every_process(make_cluster):
    c = make_cluster(nodes=1)
    c.write("traps.sh", TRAPS)
    jid = c.sbatch("--signal=USR1@4", "-t", "0:8", "traps.sh")
    wait_for(lambda: (c.work / "child.log").exists()
             and (c.work / "shell.log").exists(), 20,
             what="USR1 to reach the shell and its child")
    assert c.state(jid) == "RUNNING"
    assert c.wait_done(jid, timeout=30)["JobState"] == "TIMEOUT"
    # once only
    assert (c.work / "child.log").read_text() == "child\n"


def test_scancel_signal_batch_and_full(make_cluster):
    c = make_cluster(nodes=1)
    c.write("traps.sh", TRAPS)
    jid = c.sbatch("traps.sh")
    wait_for(lambda: (c.work / "ready").exists(), 20, what="the job to start")
    shell, child = c.work / "shell.log", c.work / "child.log"
    # Slurm: without -b or -f the batch step is not signalled, and a batch
    # job has no other step: nobody gets it.
    c.ok("scancel", "--signal=USR1", str(jid))
    # -b: the batch shell only.
    c.ok("scancel", "--signal=USR1", "-b", str(jid))
    wait_for(lambda: shell.exists(), 10, what="USR1 to reach the shell")
    # -f: the shell and all its children.
    c.ok("scancel", "-s", "USR1", "--full", str(jid))
    wait_for(lambda: child.exists(), 10, what="USR1 to reach the child")
    wait_for(lambda: len(shell.read_text().splitlines()) == 2, 10,
             what="the second USR1 at the shell")
    # The plain --signal did not reach anyone, and -b not the child.
    assert child.read_text() == "child\n"
    c.ok("scancel", str(jid))
    assert c.wait_done(jid)["JobState"] == "CANCELLED"


def test_time_min_and_bad_signal(cluster):
    jid = cluster.sbatch("-H", "--time-min=5", "-t", "10", "--signal=USR2",
                         "--wrap", "true")
    job = cluster.show_job(jid)
    assert job["TimeMin"] == "00:05:00" and job["TimeLimit"] == "00:10:00", job
    before = cluster.ok("squeue", "-h", "-o", "%i")
    for bad in ("--signal=FOO", "--signal=B:USR1@abc", "--signal=USR1@-5",
                "--signal=", "--time-min=abc"):
        rc, out, err = cluster.run("sbatch", bad, "--wrap", "true")
        what = bad.split("=")[0]
        assert (rc, out, err) == (255, "", f"sbatch: error: Invalid {what} specification\n")
    rc, out, err = cluster.run("sbatch", "--wrap", "true",
                               env=dict(cluster.env, SBATCH_SIGNAL="NOPE"))
    assert (rc, err) == (255, "sbatch: error: Invalid --signal specification\n")
    assert cluster.ok("squeue", "-h", "-o", "%i") == before


def test_signal_survives_a_ctld_restart_while_pending(make_cluster):
    c = make_cluster(nodes=1)
    c.write("ckpt.sh", "#!/bin/bash\n"
            "trap 'echo saved > ckpt' USR1\n"
            "while :; do sleep 0.1; done\n")
    jid = c.sbatch("-H", "--signal=B:USR1@3", "-t", "0:6", "ckpt.sh")
    c.kill9("ctld")
    c.up()
    c.ok("scontrol", "release", str(jid))
    ckpt = c.work / "ckpt"
    wait_for(lambda: ckpt.exists() and ckpt.read_text(), 20, what="the checkpoint")
    assert c.state(jid) == "RUNNING"
    assert c.wait_done(jid, timeout=30)["JobState"] == "TIMEOUT"
