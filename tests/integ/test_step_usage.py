"""Usage per step: what the shepherds measure with wait4() reaches sacct.

A batch script runs an srun step that holds 60 MB and spins for half a
second of CPU (process_time, not wall time: a loaded host must not make the
step use less), then a step that runs `true`, then ends. sacct shows the first
step's MaxRSS and TotalCPU from its task's rusage, the `true` step's small
peak, the batch step's own usage, and on the job row the CPU times summed
over all steps and no RSS, as Slurm 22.05 prints them. With zeros for
usage every assertion on the busy step fails. Every wait has a deadline."""

import re

from conftest import wait_for

BUSY = ('x=bytearray(60*1024*1024); import time; t=time.process_time()\n'
        'while time.process_time()-t<0.5: pass')

FIELDS = "JobID,JobName,State,TotalCPU,UserCPU,SystemCPU,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS"


def cpu_secs(text):
    """TotalCPU as sacct prints it: "MM:SS.mmm", "HH:MM:SS", "D-HH:MM:SS"."""
    days, _, rest = text.rpartition("-")
    if "." in rest:
        m = re.fullmatch(r"(\d+):(\d+)\.(\d{3})", rest)
        assert m, text
        return int(m[1]) * 60 + int(m[2]) + int(m[3]) / 1000
    m = re.fullmatch(r"(\d+):(\d+):(\d+)", rest)
    assert m, text
    return int(days or 0) * 86400 + int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])


def kib(text):
    m = re.fullmatch(r"(\d+)([KMG])", text)
    assert m, text
    return int(m.group(1)) * {"K": 1, "M": 1024, "G": 1024 * 1024}[m.group(2)]


def rows(c, jid):
    out = c.ok("sacct", "-j", str(jid), "-P", "-n", "-o", FIELDS)
    return {r.split("|")[0]: r.split("|") for r in out.splitlines()}


def test_steps_show_their_tasks_usage(cluster):
    c = cluster
    script = c.write("usage.sh", "#!/bin/bash\n"
                     f"srun -n1 python3 -c \"{BUSY}\"\n"
                     "srun -n1 true\n")
    jid = c.sbatch("-N1", "-n1", "-o", str(c.work / "usage.out"), str(script))
    c.wait_done(jid, timeout=60)
    assert c.state(jid) == "COMPLETED", (c.work / "usage.out").read_text()
    # the record is final once the job is; sacct reads it from ctld
    r = wait_for(lambda: (lambda x: len(x) >= 4 and x)(rows(c, jid)), 15,
                 what="sacct to show the job, its batch step and two steps")
    job, batch = r[str(jid)], r[f"{jid}.batch"]
    busy, true = r[f"{jid}.0"], r[f"{jid}.1"]
    node = c.show_job(jid)["NodeList"]

    # the busy step: 60 MB resident, half a second of CPU at least
    assert busy[2] == "COMPLETED", busy
    assert kib(busy[6]) >= 50000, busy
    assert cpu_secs(busy[3]) >= 0.3, busy
    assert abs(cpu_secs(busy[3]) - cpu_secs(busy[4]) - cpu_secs(busy[5])) < 0.0015, busy
    assert busy[7] == node and busy[8] == "0", busy
    assert busy[9] == busy[6], busy  # one task: its peak is the average

    # `true` barely touches memory
    assert true[2] == "COMPLETED", true
    assert 0 < kib(true[6]) < 20000, true
    assert cpu_secs(true[3]) < 0.3, true

    # the batch script's own usage (bash; srun's clients are its children)
    assert 0 < kib(batch[6]), batch
    assert batch[7] == node and batch[8] == "0", batch

    # the job row: CPU times summed over every step, no RSS (Slurm 22.05)
    total = sum(cpu_secs(x[3]) for x in (batch, busy, true))
    assert abs(cpu_secs(job[3]) - total) < 0.005, (job, total)
    assert cpu_secs(job[3]) >= 0.3, job
    assert job[6:10] == ["", "", "", ""], job


SIZED = ('import os; n=int(os.environ["SLURM_PROCID"]); '
         'x=bytearray((20+20*n)*1024*1024); import time; t=time.process_time()\n'
         'while time.process_time()-t<0.2: pass')


def test_a_step_over_two_nodes_and_a_ctld_restart(make_cluster):
    """Three tasks over two nodes: the peak is task 2's (60 MB), on the node
    it ran on; the average is over all three. The usage outlives kill -9 of
    ctld (it is in the job's store record)."""
    c = make_cluster(nodes=2)
    script = c.write("two.sh", "#!/bin/bash\n"
                     f"srun -N2 -n3 python3 -c '{SIZED}'\n")
    jid = c.sbatch("-N2", "-n3", "-o", str(c.work / "two.out"), str(script))
    c.wait_done(jid, timeout=60)
    assert c.state(jid) == "COMPLETED", (c.work / "two.out").read_text()
    step = wait_for(lambda: rows(c, jid).get(f"{jid}.0"), 15, what="the step's row")
    where = c.ok("sacct", "-j", f"{jid}.0", "-P", "-n", "-o", "NodeList").strip()
    nodes = c.ok("scontrol", "show", "hostnames", where).split()
    assert len(nodes) == 2, where
    peak, ave = kib(step[6]), kib(step[9])
    assert peak >= 60000 and step[8] == "2", step  # block: task 2 alone on the 2nd
    assert step[7] == nodes[1], (step, nodes)
    assert 20000 < ave < peak, step
    assert cpu_secs(step[3]) >= 0.3, step  # three tasks' 0.2 s at least
    before = rows(c, jid)
    c.kill9("ctld")
    c.up()  # restarts only ctld
    assert wait_for(lambda: rows(c, jid), 30, what="sacct after the restart") == before


HOLD = ('x=bytearray(60*1024*1024); import time; t=time.process_time()\n'
        'while time.process_time()-t<0.4: pass\n'
        'print("busy", flush=True); time.sleep(300)')


def test_a_step_cancelled_with_its_job_keeps_its_usage(cluster):
    """scancel of the job: its step ends CANCELLED at once, and the usage
    its node reports when the tasks are gone still reaches the record."""
    c = cluster
    script = c.write("hold.sh", "#!/bin/bash\n"
                     f"srun -n1 python3 -c '{HOLD}'\n")
    out = c.work / "hold.out"
    jid = c.sbatch("-N1", "-n1", "-o", str(out), str(script))
    wait_for(lambda: out.exists() and "busy" in out.read_text(), 30,
             what="the step to have spun and allocated")
    c.ok("scancel", str(jid))
    c.wait_done(jid, timeout=30)
    step = wait_for(lambda: (lambda x: x and x[6] and x)(rows(c, jid).get(f"{jid}.0")),
                    15, what="the cancelled step's usage")
    assert step[2].startswith("CANCELLED"), step
    assert kib(step[6]) >= 50000 and cpu_secs(step[3]) >= 0.3, step
