"""Usage sampled while jobs run: sstat, and sacct's figures after the end.

The cluster samples every second (JobAcctGatherFrequency=1). A job's srun
step grows its memory in two stages, each announced by a file and each
waiting for the test's go-ahead file, so the test knows what the step holds
when it asks: sstat must show MaxRSS at the first stage's size, then at the
second's, for the step and (with -a) the batch step beside it. After the
end sacct shows the step's peak and a CPU burner's TotalCPU near the second
it burned. Bad input gets Slurm's lines and exit codes. Every wait has a
deadline."""

import re

from conftest import wait_for

SETS = {"JobAcctGatherFrequency": "1"}

GROW = """\
import os, sys, time
work = sys.argv[1]
def stage(n, mib):
    global hold
    hold = bytearray(mib * 1024 * 1024)
    for i in range(0, len(hold), 4096):
        hold[i] = 1
    open(os.path.join(work, "stage%d" % n), "w").close()
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(work, "go%d" % n)):
        if time.time() > deadline:
            sys.exit(3)
        time.sleep(0.05)
stage(1, 30)
stage(2, 150)
"""

BURN = ('import time; t=time.process_time()\n'
        'while time.process_time()-t<1.0: pass')


def kib(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    assert m, text
    return int(m[1]) * {"": 1, "K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}[m[2]]


def secs(text):
    """[D-]HH:MM:SS, or sacct's MM:SS.mmm."""
    days, _, rest = text.rpartition("-")
    m = re.fullmatch(r"(\d+):(\d+)\.(\d{3})", rest)
    if m:
        return int(m[1]) * 60 + int(m[2]) + int(m[3]) / 1000
    m = re.fullmatch(r"(\d+):(\d+):(\d+)", rest)
    assert m, text
    return int(days or 0) * 86400 + int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])


def sstat_rows(c, *args):
    out = c.ok("sstat", "-P", "-n", *args)
    return {r.split("|")[0]: r.split("|") for r in out.splitlines() if r}


def maxrss_of(c, jid, step, at_least):
    """Waits until sstat shows step's MaxRSS at least at_least KiB."""
    def seen():
        rows = sstat_rows(c, "-a", "-j", str(jid), "-o", "JobID,MaxRSS,NTasks,Nodelist")
        row = rows.get(f"{jid}.{step}")
        return row if row and row[1] and kib(row[1]) >= at_least else None
    return wait_for(seen, 20, what=f"sstat MaxRSS of {jid}.{step} >= {at_least}K")


def test_sstat_shows_a_running_steps_memory_grow(make_cluster):
    c = make_cluster(nodes=1, sets=SETS)
    grow = c.write("grow.py", GROW, mode=0o644)
    script = c.write("grow.sh", "#!/bin/bash\n"
                     f"srun -n1 python3 {grow} {c.work}\n")
    jid = c.sbatch("-N1", "-n1", "-o", str(c.work / "grow.out"), str(script))
    wait_for(lambda: (c.work / "stage1").exists(), 30, what="stage 1")

    first = maxrss_of(c, jid, 0, 25 * 1024)
    assert kib(first[1]) < 120 * 1024, first  # not the second stage yet
    assert first[2] == "1" and first[3] == c.show_job(jid)["NodeList"], first
    # without a step: the lowest numbered step only; -a adds the batch step
    plain = sstat_rows(c, "-j", str(jid), "-o", "JobID")
    assert list(plain) == [f"{jid}.0"], plain
    both = sstat_rows(c, "-a", "-j", str(jid), "-o", "JobID,MaxRSS,MaxVMSize")
    assert list(both) == [f"{jid}.batch", f"{jid}.0"], both
    assert kib(both[f"{jid}.batch"][1]) > 0, both
    assert kib(both[f"{jid}.0"][2]) >= kib(both[f"{jid}.0"][1]), both
    # -i: the step's processes on its node
    pids = sstat_rows(c, "-i", "-j", f"{jid}.0")
    row = pids[f"{jid}.0"]
    assert row[1] == first[3] and row[2], row
    assert all(p.isdigit() for p in row[2].split(",")), row

    (c.work / "go1").touch()
    wait_for(lambda: (c.work / "stage2").exists(), 30, what="stage 2")
    second = maxrss_of(c, jid, 0, 140 * 1024)
    assert kib(second[1]) > kib(first[1]), (first, second)

    (c.work / "go2").touch()
    c.wait_done(jid, timeout=60)
    assert c.state(jid) == "COMPLETED", (c.work / "grow.out").read_text()
    # after the end, sacct has the step's peak (from the samples and wait4)
    out = c.ok("sacct", "-j", str(jid), "-P", "-n", "-o",
               "JobID,MaxRSS,AveRSS,MaxVMSize,MaxVMSizeNode,AveVMSize")
    rows = {r.split("|")[0]: r.split("|") for r in out.splitlines()}
    step = rows[f"{jid}.0"]
    assert kib(step[1]) >= 140 * 1024 and step[2] == step[1], step
    assert kib(step[3]) >= kib(step[1]) and step[4] == first[3], step
    assert step[5] == step[3], step  # one task
    # a finished job has no running step
    rc, out, err = c.run("sstat", "-j", str(jid))
    assert rc == 0 and err == f"sstat: error: No steps running for job {jid}\n", err


def test_sacct_after_a_cpu_burner(make_cluster):
    c = make_cluster(nodes=1, sets=SETS)
    script = c.write("burn.sh", "#!/bin/bash\n"
                     f"srun -n1 python3 -c \"{BURN}\"\n")
    jid = c.sbatch("-N1", "-n1", "-o", str(c.work / "burn.out"), str(script))
    c.wait_done(jid, timeout=60)
    assert c.state(jid) == "COMPLETED", (c.work / "burn.out").read_text()
    fields = "JobID,TotalCPU,AveCPU,MinCPU,MaxRSS,AveRSS,TRESUsageInMax,TRESUsageInAve"
    out = c.ok("sacct", "-j", str(jid), "-P", "-n", "-o", fields)
    rows = {r.split("|")[0]: r.split("|") for r in out.splitlines()}
    step = rows[f"{jid}.0"]
    assert 0.9 <= secs(step[1]) <= 2.5, step  # it burned one second
    assert 0 <= secs(step[2]) <= 3 and 0 <= secs(step[3]) <= 3, step
    assert 1024 <= kib(step[4]) <= 200 * 1024, step  # a python, not more
    assert step[5] == step[4], step
    tres_max = dict(kv.split("=", 1) for kv in step[6].split(","))
    assert sorted(tres_max) == ["cpu", "energy", "mem", "vmem"], step
    assert tres_max["mem"] == step[4] and kib(tres_max["vmem"]) >= kib(step[4]), step
    assert step[7].startswith("cpu=") and f"mem={step[5]}" in step[7], step


def test_sstat_bad_input(make_cluster):
    c = make_cluster(nodes=1, sets=SETS)
    rc, out, err = c.run("sstat", "-j", "nosuch")
    assert rc == 1 and out == "", (rc, out)
    assert err == "sstat: fatal: Bad job/step specified: nosuch\n", err
    rc, out, err = c.run("sstat", "-j", "5.x")
    assert rc == 1 and err == "sstat: fatal: Bad step specified: 5\n", err
    rc, out, err = c.run("sstat")
    assert rc == 1 and err == "sstat: error: You didn't give me any jobs to stat.\n", err
    rc, out, err = c.run("sstat", "-j", "1", "-o", "JobID,NoSuchField")
    assert rc == 1 and err == 'sstat: error: Invalid field requested: "NoSuchField"\n'
    # Slurm's sstat goes on after a job it cannot stat, and exits 0
    rc, out, err = c.run("sstat", "-n", "-j", "999999")
    assert rc == 0 and out == "", out
    assert err == "sstat: error: couldn't get steps for job 999999\n", err
    held = c.write("held.sh", "#!/bin/bash\ntrue\n")
    jid = c.sbatch("-H", str(held))
    assert c.state(jid) == "PENDING"
    rc, out, err = c.run("sstat", "-P", "-j", str(jid))
    assert rc == 0 and err == f"sstat: error: No steps running for job {jid}\n", err
    assert out.startswith("JobID|MaxVMSize|MaxVMSizeNode|"), out  # the header
    rc, out, err = c.run("sstat", "-n", "-j", f"{jid}.0")
    assert rc == 0 and err == f"sstat: error: StepId={jid}.0 not found running.\n", err
    assert c.state(jid) == "PENDING"  # looking changed nothing
    c.ok("scancel", str(jid))


def test_sstat_of_the_batch_step_across_a_noded_kill9(make_cluster):
    """The samples live in the job's dir, written by its shepherd: a noded
    killed and restarted answers for them again, and they keep growing."""
    c = make_cluster(nodes=1, sets=dict(SETS, SlurmdTimeout="20"))
    grow = c.write("grow.py", GROW, mode=0o644)
    script = c.write("grow.sh", f"#!/bin/bash\npython3 {grow} {c.work}\n")
    jid = c.sbatch("-o", str(c.work / "grow.out"), str(script))
    wait_for(lambda: (c.work / "stage1").exists(), 30, what="stage 1")
    first = maxrss_of(c, jid, "batch", 25 * 1024)
    # a batch job without srun steps: nothing without a step or -a (Slurm)
    rc, out, err = c.run("sstat", "-n", "-j", str(jid))
    assert (rc, out, err) == (0, "", ""), (rc, out, err)
    c.kill9("n1")
    (c.work / "go1").touch()
    wait_for(lambda: (c.work / "stage2").exists(), 30, what="stage 2")
    c.up()
    second = maxrss_of(c, jid, "batch", 140 * 1024)
    assert kib(second[1]) > kib(first[1]) and second[3] == "n1", (first, second)
    (c.work / "go2").touch()
    c.wait_done(jid, timeout=60)
    assert c.state(jid) == "COMPLETED", (c.work / "grow.out").read_text()
