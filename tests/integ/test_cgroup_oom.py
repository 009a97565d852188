"""Cgroups: a job's memory request is its steps' limit on each node (the
batch step's and every srun step's share), the kernel's OOM kill shows as
OUT_OF_MEMORY (ExitCode 0:125) with srun's "Out Of Memory" line, and the
cgroups are gone when the job is. Needs a writable memory controller (root
on a host with cgroup v1 or v2): skipped elsewhere, with the reason."""

import os
import pathlib
import re

import pytest

from conftest import wait_for

CG = pathlib.Path("/sys/fs/cgroup")


def memory_root():
    """The memory controller's root we may write to, or None."""
    if os.geteuid() != 0:
        return None
    ctl = CG / "cgroup.controllers"
    try:
        if "memory" in ctl.read_text().split():
            return CG if os.access(CG, os.W_OK) else None
    except OSError:
        pass
    mem = CG / "memory"
    if (mem / "memory.limit_in_bytes").exists() and os.access(mem, os.W_OK):
        return mem
    return None


ROOT = memory_root()
pytestmark = pytest.mark.skipif(
    ROOT is None, reason="needs root and a writable cgroup memory controller")

ALLOC = 'python3 -c "x = bytearray({mb} * 1024 * 1024); x[::4096] = b\'1\' * len(x[::4096]); print(\'alive\', \'after\')"'


def sacct_rows(c, jid):
    out = c.ok("sacct", "-j", str(jid), "-P", "-n", "--format=JobID,State,ExitCode")
    return dict((l.split("|")[0], tuple(l.split("|")[1:])) for l in out.splitlines())


CG_SH = ("#!/bin/bash\n"
         "# prints KEY=the memory cgroup it runs in (v1 or v2)\n"
         "awk -F: -v k=\"$1\" '$2==\"memory\" {m=$3} $1==\"0\" {u=$3} "
         "END {print k \"=\" (m != \"\" ? m : u)}' /proc/self/cgroup\n"
         "d=$(awk -F: '$2==\"memory\" {m=$3} $1==\"0\" {u=$3} "
         "END {print (m != \"\" ? m : u)}' /proc/self/cgroup)\n"
         f"cat {ROOT}$d/memory.limit_in_bytes {ROOT}$d/memory.max 2>/dev/null "
         "| sed \"s/^/$1_LIMIT=/\"\n")


def test_srun_step_over_its_share_is_out_of_memory(make_cluster):
    c = make_cluster(nodes=1)
    assert re.search(r"cgroup v[12] under", c.log("n1")), c.log("n1")
    c.write("step.sh", "#!/bin/bash\n"
            f"srun {ALLOC.format(mb=200)}\n"
            "echo \"srun rc=$?\"\n")
    jid = c.sbatch("--mem=50M", "-o", "step.out", "step.sh")
    job = c.wait_done(jid, timeout=60)
    out = (c.work / "step.out").read_text()
    # the batch step lives on to report it; srun says what happened
    assert "srun: error: n1: task 0: Out Of Memory" in out, out
    assert "alive after" not in out, out
    m = re.search(r"srun rc=(\d+)", out)
    assert m and m.group(1) != "0", out
    # the script exited 0: the job and its batch step follow it (Slurm);
    # the step is OUT_OF_MEMORY with ExitCode 0:125
    assert job["JobState"] == "COMPLETED", job
    rows = wait_for(lambda: (r := sacct_rows(c, jid)).get(f"{jid}.0") and r, 10,
                    what="the step's row")
    assert rows[f"{jid}.0"] == ("OUT_OF_MEMORY", "0:125"), rows
    assert rows[f"{jid}.batch"] == ("COMPLETED", "0:0"), rows
    assert rows[str(jid)] == ("COMPLETED", "0:0"), rows


def test_batch_script_over_its_memory_is_out_of_memory(make_cluster):
    c = make_cluster(nodes=1)
    c.write("big.sh", "#!/bin/bash\n" + ALLOC.format(mb=200) + "\n"
            "echo \"python rc=$?\"\n")
    jid = c.sbatch("--mem=50M", "-o", "big.out", "big.sh")
    job = c.wait_done(jid, timeout=60)
    assert job["JobState"] == "OUT_OF_MEMORY", job
    assert job["ExitCode"] == "0:125", job
    assert job["Reason"] == "OutOfMemory", job
    out = (c.work / "big.out").read_text()
    assert "alive after" not in out and "python rc=137" in out, out
    rows = sacct_rows(c, jid)
    assert rows[str(jid)] == ("OUT_OF_MEMORY", "0:125"), rows
    assert rows[f"{jid}.batch"] == ("OUT_OF_MEMORY", "0:125"), rows
    st = c.ok("squeue", "-h", "-t", "OOM", "-o", "%i %t", "-j", str(jid))
    # squeue shows it while it is still in memory (MinJobAge)
    assert st.split() in ([str(jid), "OOM"], []), st


def cg_dir(text, key):
    m = re.search(rf"^{key}=(\S+)$", text, re.M)
    assert m, text
    return ROOT / m.group(1).lstrip("/")


def test_job_within_its_limit_runs_and_its_cgroups_go(make_cluster):
    c = make_cluster(nodes=1)
    c.write("cg.sh", CG_SH)
    c.write("ok.sh", "#!/bin/bash\n./cg.sh BATCH\n" + ALLOC.format(mb=20) + "\n"
            "srun ./cg.sh STEP\n"
            "srun " + ALLOC.format(mb=20) + "\n")
    jid = c.sbatch("--mem=300M", "-o", "ok.out", "ok.sh")
    job = c.wait_done(jid, timeout=60)
    out = (c.work / "ok.out").read_text()
    assert job["JobState"] == "COMPLETED", (job, out)
    assert out.count("alive after") == 2, out
    batch, step = cg_dir(out, "BATCH"), cg_dir(out, "STEP")
    assert re.fullmatch(rf"drover_n1_\d+/job_{jid}/step_batch",
                        str(batch.relative_to(ROOT))), batch
    assert re.fullmatch(rf"drover_n1_\d+/job_{jid}/step_0",
                        str(step.relative_to(ROOT))), step
    # both limited to the job's memory on the node
    mib300 = str(300 * 1024 * 1024)
    assert re.search(rf"^BATCH_LIMIT={mib300}$", out, re.M), out
    assert re.search(rf"^STEP_LIMIT={mib300}$", out, re.M), out
    # the job's cgroups are removed with it
    wait_for(lambda: not batch.parent.exists(), 10, what=f"{batch.parent} to go")
    rows = sacct_rows(c, jid)
    assert rows[f"{jid}.0"] == ("COMPLETED", "0:0"), rows
    assert rows[f"{jid}.1"] == ("COMPLETED", "0:0"), rows


def test_constrain_ram_space_no_sets_no_limit(make_cluster):
    c = make_cluster(nodes=1, sets={"ConstrainRAMSpace": "no"})
    c.write("free.sh", "#!/bin/bash\n" + ALLOC.format(mb=120) + "\n")
    jid = c.sbatch("--mem=50M", "-o", "free.out", "free.sh")
    job = c.wait_done(jid, timeout=60)
    assert job["JobState"] == "COMPLETED", (job, (c.work / "free.out").read_text())
    assert "ConstrainRAMSpace=no" in c.log("n1")


def test_drover_down_removes_the_cgroups_of_running_jobs(make_cluster):
    c = make_cluster(nodes=1)
    c.write("cg.sh", CG_SH)
    c.write("long.sh", "#!/bin/bash\n./cg.sh BATCH\nsleep 300\n")
    jid = c.sbatch("--mem=100M", "-o", "long.out", "long.sh")
    c.wait_state(jid, "RUNNING")
    path = c.work / "long.out"
    out = wait_for(lambda: path.exists() and "BATCH=" in (t := path.read_text())
                   and t, 20, what="the job's cgroup line")
    batch = cg_dir(out, "BATCH")
    assert batch.is_dir()
    rc, _, err = c.down()
    assert rc == 0, err
    assert not batch.parent.parent.exists(), list(batch.parent.parent.rglob("*"))


def test_srun_mem_limits_its_own_step(make_cluster):
    """srun --mem inside a job without a memory request: that step alone is
    limited, the next one is not."""
    c = make_cluster(nodes=1)
    c.write("own.sh", "#!/bin/bash\n"
            f"srun --mem=50M {ALLOC.format(mb=200)}\n"
            "echo \"first rc=$?\"\n"
            f"srun {ALLOC.format(mb=200)}\n"
            "echo \"second rc=$?\"\n")
    jid = c.sbatch("-o", "own.out", "own.sh")
    c.wait_done(jid, timeout=60)
    out = (c.work / "own.out").read_text()
    assert "task 0: Out Of Memory" in out and "second rc=0" in out, out
    assert out.count("alive after") == 1, out
    rows = wait_for(lambda: (r := sacct_rows(c, jid)).get(f"{jid}.1") and r, 10,
                    what="both steps' rows")
    assert rows[f"{jid}.0"] == ("OUT_OF_MEMORY", "0:125"), rows
    assert rows[f"{jid}.1"] == ("COMPLETED", "0:0"), rows
