"""sattach JOBID.STEP: joins a running step's I/O.

The bytes are Slurm 22.05's sattach: labelled lines ("N: "), the output it
missed replayed first, --output-filter filtering stderr too unless
--error-filter says otherwise, "sattach: error: task N exited with exit
code C" and the highest code as its exit, --layout's table, and its
refusals: "Could not get job step info: Invalid job id specified" for an
unknown job or a step of a running job that is not running, "... Job/step
already completing or completed" for an ended job, exit 1."""
import os
import re
import select
import subprocess
import time

import pytest

from conftest import as_nobody_prefix, wait_for

# Prints a tick every 0.2 s; echoes what it reads; "stop" exits 3, the end
# of its input 4.
LOOP = ('while :; do read -t 0.2 line; rc=$?; '
        'if [ $rc = 0 ]; then echo "got $SLURM_PROCID $line"; '
        '[ "$line" = stop ] && exit 3; '
        'elif [ $rc -le 128 ]; then exit 4; '
        'else echo "tick $SLURM_PROCID"; echo "etick $SLURM_PROCID" >&2; fi; done')

BAD_ID = "sattach: error: Could not get job step info: Invalid job id specified\n"
DONE = ("sattach: error: Could not get job step info: "
        "Job/step already completing or completed\n")
USAGE = "Usage: sattach [options] <jobid.stepid>\n"


def up(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2"])
    return c


def running_step(c, step):
    out = c.ok("squeue", "-h", "-s", "-o", "%i %T")
    return any(line.split()[0] == step for line in out.splitlines())


def read_until(proc, pattern, timeout=20):
    """Reads proc's stdout until pattern (a regex) is in it; returns it."""
    got = b""

    def seen():
        nonlocal got
        r, _, _ = select.select([proc.stdout], [], [], 0.2)
        if r:
            got += os.read(proc.stdout.fileno(), 65536)
        return re.search(pattern, got.decode())
    wait_for(seen, timeout, interval=0, what=f"{pattern!r} from sattach")
    return got.decode()


def test_attach_to_a_running_step(make_cluster):
    c = up(make_cluster)
    srun = subprocess.Popen([str(c.bin / "srun"), "-n2", "bash", "-c", LOOP],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=c.env, cwd=c.work)
    try:
        jid = wait_for(lambda: c.ok("squeue", "-h", "-o", "%i").strip(), 20,
                       what="srun's job")
        step = f"{jid}.0"
        wait_for(lambda: running_step(c, step), 20, what="the step running")
        # --layout prints the step's shape and attaches to nothing
        rc, out, err = c.run("sattach", "--layout", step)
        assert (rc, err) == (0, "")
        assert out == ("Job step layout:\n\t2 tasks, 1 nodes (n1)\n\n"
                       "\tNode 0 (n1), 2 task(s): 0 1 \n")
        # --output-filter=1: task 1's lines only, stderr filtered alike
        watch = subprocess.Popen([str(c.bin / "sattach"), "--output-filter=1", "-l",
                                  step], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=c.env, cwd=c.work)
        text = read_until(watch, r"(1: tick 1\n.*){3}", 20)
        watch.terminate()
        _, werr = watch.communicate(timeout=20)
        assert set(text.splitlines()) == {"1: tick 1"}, text
        assert set(werr.decode().splitlines()) <= {"1: etick 1"}, werr
        # the step is untouched by that sattach leaving
        assert srun.poll() is None and running_step(c, step)
        # stdin to every task; their lines labelled; the ends reported
        rc, out, err = c.run("sattach", "-l", step, input="hello\nstop\n",
                             timeout=60)
        assert rc == 3, (out, err)
        lines = out.splitlines()
        assert "0: got 0 hello" in lines and "1: got 1 hello" in lines, out
        assert "0: got 0 stop" in lines and "1: got 1 stop" in lines, out
        assert "0: tick 0" in lines and "1: tick 1" in lines, out
        assert all(re.fullmatch(r"[01]: (tick|got) .*", l) for l in lines), out
        assert all(re.fullmatch(r"[01]: etick [01]", l)
                   for l in err.splitlines()[:-2]), err
        assert err.endswith("sattach: error: task 0 exited with exit code 3\n"
                            "sattach: error: task 1 exited with exit code 3\n"), err
        # srun saw the same ends
        assert srun.wait(timeout=30) == 3
    finally:
        if srun.poll() is None:
            srun.kill()
            srun.wait()


def test_sattach_refusals(make_cluster):
    c = up(make_cluster)
    c.write("job.sh", "#!/bin/sh\nsrun true\nsrun sleep 300\n")
    jid = c.sbatch("-n1", str(c.work / "job.sh"))
    wait_for(lambda: running_step(c, f"{jid}.1"), 30, what="step 1 running")
    before = c.ok("squeue", "-h", "-s", "-o", "%i %T")
    # step 0 ended, step 5 never was: both "Invalid job id", as Slurm
    assert c.run("sattach", f"{jid}.0") == (1, "", BAD_ID)
    assert c.run("sattach", f"{jid}.5") == (1, "", BAD_ID)
    assert c.run("sattach", f"{jid}.batch") == (1, "", BAD_ID)
    assert c.run("sattach", "99999.0") == (1, "", BAD_ID)
    # what is not JOBID.STEP
    fail = "sattach: error: Failed to parse stepid from command line options\n"
    assert c.run("sattach", str(jid)) == (1, USAGE, fail)
    assert c.run("sattach", "abc") == (1, USAGE, fail)
    assert c.run("sattach") == (1, USAGE, "sattach: error: too many parameters\n")
    assert c.run("sattach", "1.0", "2.0") == (
        1, USAGE, "sattach: error: too many parameters\n")
    assert c.run("sattach", "--output-filter=x", "1.0") == (
        1, "", 'sattach: error: Invalid numeric value "x" for output-filter.\n')
    assert c.run("sattach", "--input-filter=-1", "1.0") == (
        1, "", 'sattach: error: Invalid numeric value "-1" for input-filter.\n')
    assert c.run("sattach", "--input-filter=99999999999", "1.0") == (
        1, "", "sattach: error: Numeric argument 99999999999 to big for "
        "input-filter.\n")
    assert c.run("sattach", "-u") == (0, USAGE, "")
    # another user's step
    if os.geteuid() == 0:
        rc, out, err = c.run(*as_nobody_prefix(), str(c.bin / "sattach"), f"{jid}.1")
        if rc not in (126, 127):
            assert (rc, out, err) == (
                1, "", "sattach: error: Could not get job step info: "
                "Access/permission denied\n")
    # nothing changed
    assert c.ok("squeue", "-h", "-s", "-o", "%i %T") == before
    # an ended job
    c.ok("scancel", str(jid))
    c.wait_done(jid)
    assert c.run("sattach", f"{jid}.1") == (1, "", DONE)
