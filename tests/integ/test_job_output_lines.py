"""Slurm's own lines in a job's output, byte for byte as Slurm's
slurmstepd and srun write them (checked on a Slurm 22.05 cluster; the OOM
line as current Slurm and issue 12 word it):

    slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT 2026-12-02T04:56:19 DUE TO TIME LIMIT ***
    slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT 2026-12-02T04:55:16 ***
    srun: Job step aborted: Waiting up to 7 seconds for job step to finish.
    slurmstepd: error: *** STEP 7.0 ON n1 CANCELLED AT 2026-12-02T04:55:43 ***
    slurmstepd: error: Detected 1 oom_kill event in StepId=5.batch. Some of
      the step tasks have been OOM Killed.

The batch lines go to the job's stderr file, a step's to srun's stderr.
("Waiting up to N seconds" is KillWait + 2; KillWait is 1 here, 5 in the
batch jobs with a step.)"""
import re
import signal
import subprocess

import pytest

from conftest import wait_for
from test_cgroup_oom import ROOT as CGROUP_ROOT

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


# A batch script with a step. Its trap keeps the script (and so srun, which
# the batch step's end would take with it) until srun has ended its step:
# whether a plain script outlives its SIGTERM long enough for srun to print
# is a race, in Slurm too. After srun it waits for its own SIGTERM, so that
# the step's end (which comes first) cannot end the script before it.
STEP_JOB = ("#!/bin/bash\ntrap 'echo script got TERM' TERM\n"
            "srun sh -c 'echo up; exec sleep 300'\n"
            "sleep 300 & wait\n")
STEP_SETS = {"KillWait": "5"}


def job_line(jid, node, tail=""):
    return re.compile(rf"slurmstepd: error: \*\*\* JOB {jid} ON {node} CANCELLED AT "
                      rf"{STAMP}{tail} \*\*\*\n")


def step_line(step, node, tail=""):
    return re.compile(rf"slurmstepd: error: \*\*\* STEP {re.escape(step)} ON {node} "
                      rf"CANCELLED AT {STAMP}{tail} \*\*\*\n")


def test_time_limit_line_in_the_jobs_stderr(make_cluster):
    c = make_cluster(nodes=1)
    c.write("long.sh", "#!/bin/bash\necho started\nexec sleep 300\n")
    jid = c.sbatch("-t", "0:2", "-o", "tl.out", "-e", "tl.err", "long.sh")
    c.wait_done(jid, timeout=30)
    assert c.state(jid) == "TIMEOUT"
    err = (c.work / "tl.err").read_text()
    assert job_line(jid, "n1", " DUE TO TIME LIMIT").fullmatch(err), repr(err)
    assert (c.work / "tl.out").read_text() == "started\n"


def test_scancel_line_in_the_jobs_stderr_before_its_trap(make_cluster):
    c = make_cluster(nodes=1)
    # one file for both streams: Slurm's line comes before the job's SIGTERM
    c.write("trap.sh", "#!/bin/bash\n"
            "trap 'echo got TERM; exit 0' TERM\n"
            "echo started\n"
            "sleep 300 & wait\n")
    jid = c.sbatch("-o", "sc.out", "trap.sh")
    wait_for(lambda: (c.work / "sc.out").exists()
             and (c.work / "sc.out").read_text() == "started\n", 30,
             what="the job running")
    c.ok("scancel", str(jid))
    c.wait_done(jid, timeout=30)
    assert c.state(jid) == "CANCELLED"
    text = (c.work / "sc.out").read_text()
    m = re.fullmatch(r"started\n(.*\n)got TERM\n", text)
    assert m, repr(text)
    assert job_line(jid, "n1").fullmatch(m.group(1)), repr(text)


def run_srun(c, *args):
    return subprocess.Popen(["srun", *args], env=c.env, cwd=c.work,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, timeout=30):
    try:
        return p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def test_scancel_of_a_step_srun_and_slurmstepd_lines(make_cluster):
    c = make_cluster(nodes=1)
    p = run_srun(c, "sh", "-c", "echo up; exec sleep 300")
    assert p.stdout.readline() == "up\n"
    steps = c.ok("squeue", "-s", "-h", "-o", "%i").split()
    assert len(steps) == 1 and steps[0].endswith(".0"), steps
    c.ok("scancel", steps[0])
    out, err = finish(p)
    lines = err.splitlines(keepends=True)
    assert lines[0] == "srun: Job step aborted: Waiting up to 3 seconds for job " \
                       "step to finish.\n", err
    assert step_line(steps[0], "n1").fullmatch(lines[1]), err
    assert re.fullmatch(r"srun: error: n1: task 0: (Terminated|Killed)\n", lines[2]), err
    assert len(lines) == 3, err


def test_interactive_time_limit_srun_and_slurmstepd_lines(make_cluster):
    c = make_cluster(nodes=1)
    p = run_srun(c, "-t", "0:2", "sh", "-c", "echo up; exec sleep 300")
    assert p.stdout.readline() == "up\n"
    out, err = finish(p)
    lines = err.splitlines(keepends=True)
    jid = c.ok("squeue", "-h", "-t", "all", "-o", "%i").split()[0]
    assert step_line(f"{jid}.0", "n1", " DUE TO TIME LIMIT").fullmatch(lines[0]), err
    assert lines[1] == "srun: Job step aborted: Waiting up to 3 seconds for job " \
                       "step to finish.\n", err
    assert lines[2] == "srun: error: n1: task 0: Terminated\n", err
    assert len(lines) == 3, err
    wait_for(lambda: c.state(jid) == "TIMEOUT", 10, what="TIMEOUT")


def test_job_end_cancels_a_batch_jobs_step_with_its_line(make_cluster):
    """The batch script's time limit ends its running step too: the step's
    line (DUE TO TIME LIMIT) reaches srun's stderr, the job's line too."""
    c = make_cluster(nodes=1, sets=STEP_SETS)
    c.write("steps.sh", STEP_JOB)
    jid = c.sbatch("-t", "0:3", "-o", "st.out", "-e", "st.err", "steps.sh")
    c.wait_done(jid, timeout=40)
    assert c.state(jid) == "TIMEOUT"
    path = c.work / "st.err"
    step = step_line(f"{jid}.0", "n1", " DUE TO TIME LIMIT")
    wait_for(lambda: step.search(path.read_text()), 10, what="the step's line")
    err = path.read_text()
    assert job_line(jid, "n1", " DUE TO TIME LIMIT").search(err), repr(err)


@pytest.mark.skipif(CGROUP_ROOT is None,
                    reason="needs root and a writable cgroup memory controller")
def test_oom_line_in_the_jobs_stderr(make_cluster):
    c = make_cluster(nodes=1)
    c.write("oom.sh", "#!/bin/bash\n"
            "python3 -c \"x = bytearray(300 * 1024 * 1024); "
            "x[::4096] = b'1' * len(x[::4096])\"\n")
    jid = c.sbatch("--mem=64M", "-o", "oom.out", "-e", "oom.err", "oom.sh")
    c.wait_done(jid, timeout=60)
    err = (c.work / "oom.err").read_text()
    want = (f"slurmstepd: error: Detected 1 oom_kill event in StepId={jid}.batch. "
            "Some of the step tasks have been OOM Killed.\n")
    assert want in err, repr(err)


def ordered(text, *pieces):
    """Each piece (str or compiled pattern) found, in this order."""
    at = 0
    for p in pieces:
        if isinstance(p, str):
            i = text.find(p, at)
        else:
            m = p.search(text, at)
            i = m.start() if m else -1
        assert i >= 0, (p, text)
        at = i + 1
    return True


def test_scancel_of_a_batch_job_with_a_step(make_cluster):
    """As Slurm 22.05 wrote it for the same job (srun in a batch script):
    srun: Job step aborted: Waiting up to 7 seconds for job step to finish.
    slurmstepd: error: *** STEP 25.0 ON n1 CANCELLED AT ... ***
    slurmstepd: error: *** JOB 25 ON n1 CANCELLED AT ... ***
    srun: got SIGCONT
    srun: forcing job termination
    srun: error: n1: task 0: Terminated"""
    c = make_cluster(nodes=1, sets=STEP_SETS)
    c.write("st.sh", STEP_JOB)
    jid = c.sbatch("-o", "st.out", "st.sh")
    wait_for(lambda: (c.work / "st.out").exists()
             and "up\n" in (c.work / "st.out").read_text(), 30, what="its step running")
    c.ok("scancel", str(jid))
    c.wait_done(jid, timeout=30)
    # srun's lines may come a moment after the job's end
    out = c.work / "st.out"
    wait_for(lambda: step_line(f"{jid}.0", "n1").search(out.read_text()), 10,
             what="the step's line")
    text = out.read_text()
    assert ordered(text, "srun: Job step aborted: Waiting up to 7 seconds for job step "
                   "to finish.\n", step_line(f"{jid}.0", "n1"))
    assert job_line(jid, "n1").search(text), text
    assert ordered(text, job_line(jid, "n1"), "srun: got SIGCONT\n",
                   "srun: forcing job termination\n")
    assert re.search(r"srun: error: n1: task 0: (Terminated|Killed)\n", text), text
    assert "Force Terminated" not in text


def test_requeue_lines(make_cluster):
    """scontrol requeue: '... DUE TO JOB REQUEUE ***' for the job and its
    step, as Slurm 22.05 writes them."""
    c = make_cluster(nodes=1, sets=STEP_SETS)
    c.write("rq.sh", STEP_JOB)
    jid = c.sbatch("--requeue", "--open-mode=append", "-o", "rq.out", "rq.sh")
    wait_for(lambda: (c.work / "rq.out").exists()
             and "up\n" in (c.work / "rq.out").read_text(), 30, what="its step running")
    c.ok("scontrol", "requeue", str(jid))
    tail = " DUE TO JOB REQUEUE"
    wait_for(lambda: c.state(jid) == "PENDING" and not c.show_job(jid).get("NodeList")
             and c.ok("squeue", "-h", "-t", "CG", "-o", "%i") == "", 30,
             what="the run's end")
    path = c.work / "rq.out"
    wait_for(lambda: step_line(f"{jid}.0", "n1", tail).search(path.read_text()), 10,
             what="the step's line")
    text = path.read_text()
    assert job_line(jid, "n1", tail).search(text), text
    assert step_line(f"{jid}.0", "n1", tail).search(text), text
    c.ok("scancel", str(jid))


def test_srun_takes_sigcont_and_sigterm_as_slurms(make_cluster):
    """Slurm's srun: SIGCONT prints "srun: got SIGCONT"; SIGTERM prints
    "srun: forcing job termination" and kills the tasks (SIGKILL)."""
    c = make_cluster(nodes=1)
    p = run_srun(c, "sh", "-c", "trap '' TERM; echo up; while :; do sleep 0.1; done")
    assert p.stdout.readline() == "up\n"
    p.send_signal(signal.SIGCONT)
    assert p.stderr.readline() == "srun: got SIGCONT\n"
    p.send_signal(signal.SIGTERM)
    out, err = finish(p)
    assert err.startswith("srun: forcing job termination\n"), err
    assert "srun: error: n1: task 0: Killed\n" in err, err
    assert p.returncode == 137, err


@pytest.mark.skipif(CGROUP_ROOT is None,
                    reason="needs root and a writable cgroup memory controller")
def test_oom_line_of_a_step_before_sruns_own(make_cluster):
    c = make_cluster(nodes=1)
    c.write("step.sh", "#!/bin/bash\n"
            "srun python3 -c \"x = bytearray(200 * 1024 * 1024); "
            "x[::4096] = b'1' * len(x[::4096])\"\n")
    jid = c.sbatch("--mem=50M", "-o", "step.out", "step.sh")
    c.wait_done(jid, timeout=60)
    out = (c.work / "step.out").read_text()
    assert ordered(out, f"slurmstepd: error: Detected 1 oom_kill event in StepId={jid}.0. "
                   "Some of the step tasks have been OOM Killed.\n",
                   "srun: error: n1: task 0: Out Of Memory\n")


def test_step_line_is_labelled_as_task_0s_with_l(make_cluster):
    """Slurm 22.05's `srun -l`: `0: slurmstepd: error: *** STEP ... ***`."""
    c = make_cluster(nodes=1)
    p = run_srun(c, "-l", "sh", "-c", "echo up; exec sleep 300")
    assert p.stdout.readline() == "0: up\n"
    step = c.ok("squeue", "-s", "-h", "-o", "%i").split()[0]
    c.ok("scancel", step)
    out, err = finish(p)
    lines = err.splitlines(keepends=True)
    assert lines[0].startswith("srun: Job step aborted: "), err
    assert lines[1].startswith("0: ") and step_line(step, "n1").fullmatch(lines[1][3:]), err


def test_kill_on_bad_exit_lines(make_cluster):
    """Slurm 22.05 (docs/srun-peer-captures.md): srun ended the step itself,
    so the step's line comes without "Job step aborted", and srun says
    "Force Terminated":
    srun: error: n1: task 0: Exited with exit code 1
    srun: launch/slurm: _step_signal: Terminating StepId=23365.0
    slurmstepd-n1: error: *** STEP 23365.0 ON n1 CANCELLED AT 2026-11-30T18:30:44 ***
    srun: error: n1: task 1: Terminated
    srun: Force Terminated StepId=23365.0"""
    c = make_cluster(nodes=1, sets={"KillWait": "10"})
    # the survivor dies of its SIGTERM half a second late, so that ctld's
    # cancel surely finds the step still there (srun's own SIGTERM comes first)
    p = run_srun(c, "--kill-on-bad-exit", "-n2", "sh", "-c",
                 "if [ $SLURM_PROCID = 0 ]; then exit 1; fi; "
                 "trap 'sleep 0.5; trap - TERM; kill -TERM $$' TERM; sleep 30 & wait")
    out, err = finish(p)
    m = re.search(r"Terminating StepId=(\d+\.0)\n", err)
    assert m, err
    step = m.group(1)
    assert ordered(err, "srun: error: n1: task 0: Exited with exit code 1\n",
                   f"srun: launch/slurm: _step_signal: Terminating StepId={step}\n",
                   step_line(step, "n1"), "srun: error: n1: task 1: Terminated\n",
                   f"srun: Force Terminated StepId={step}\n")
    assert "Job step aborted" not in err, err
    assert p.returncode == 143, err


def test_shepherd_from_before_is_signalled_by_noded(make_cluster):
    """A shepherd that does not say it takes noded's kill signal (its job
    dir lacks kill_why: one started before an upgrade) is never sent it:
    noded signals the job's group itself (no line), the job ends CANCELLED."""
    c = make_cluster(nodes=1)
    c.write("trap.sh", "#!/bin/bash\ntrap 'echo got TERM; exit 0' TERM\n"
            "echo started\nsleep 300 & wait\n")
    jid = c.sbatch("-o", "old.out", "trap.sh")
    out = c.work / "old.out"
    wait_for(lambda: out.exists() and out.read_text() == "started\n", 30,
             what="the job running")
    marker = next((c.dir / "spool").glob(f"*/job.{jid}/kill_why"))
    marker.unlink()
    c.ok("scancel", str(jid))
    c.wait_done(jid, timeout=30)
    assert c.state(jid) == "CANCELLED"
    assert out.read_text() == "started\ngot TERM\n"
    assert f"job={jid} terminating group" in c.log("n1")
