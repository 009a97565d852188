"""What training launchers read under Slurm (docs/launchers.md): torchrun
scripts, PyTorch Lightning's SLURMEnvironment, Hugging Face accelerate's
examples and submitit take ranks, node ids and the master host from the
SLURM_* variables of an srun step and `scontrol show hostnames`. Here a
2-node job runs such a step and the variables must form one consistent
world; then salloc, which interactive users wrap these launchers in."""

import re

from conftest import wait_for

FIELDS = ["SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS",
          "SLURM_NNODES", "SLURM_JOB_NODELIST", "SLURM_STEP_NODELIST",
          "SLURMD_NODENAME", "SLURM_JOB_ID", "SLURM_NTASKS_PER_NODE",
          "SLURM_NODELIST", "SLURM_JOB_NAME"]

# Each task prints its variables, the first host of the job's node list as
# accelerate's and pytorch/examples' sbatch scripts take it, and Lightning's
# default MASTER_PORT (the job id's last four digits + 15000) in shell.
TASK = ('printf TASK; '
        + "; ".join(f'printf " {v}=%s" "${v}"' for v in FIELDS)
        + '; printf " MASTER_ADDR=%s" "$(scontrol show hostnames $SLURM_JOB_NODELIST'
          ' | head -n1)"'
        + '; printf " MASTER_PORT=%s\\n" "$((15000 + SLURM_JOB_ID % 10000))"')


def test_step_variables_form_one_world(make_cluster):
    c = make_cluster(nodes=2, start=False)
    c.up(extra=("--cpus", "2"))
    c.write("world.sh", "#!/bin/bash\n"
            "#SBATCH -N2 --ntasks-per-node=2 -J train -o world.out\n"
            f"srun -N2 --ntasks-per-node=2 sh -c '{TASK}'\n"
            'echo "srun_rc=$?"\n')
    jid = c.sbatch("world.sh")
    job = c.wait_done(jid, timeout=60)
    out = (c.work / "world.out").read_text()
    assert job["JobState"] == "COMPLETED", (job, out)
    assert "srun_rc=0\n" in out, out
    tasks = [dict(kv.split("=", 1) for kv in line.split()[1:])
             for line in out.splitlines() if line.startswith("TASK ")]
    assert len(tasks) == 4, out

    hosts = c.ok("scontrol", "show", "hostnames", "n[1-2]").split()
    assert hosts == ["n1", "n2"]
    # Lightning: last four digits of the job id + 15000 (job 5 -> 15005).
    port = str(int(str(jid)[-4:]) + 15000)
    for t in tasks:
        assert t["SLURM_JOB_ID"] == str(jid), t
        assert t["SLURM_NTASKS"] == "4", t
        assert t["SLURM_NNODES"] == "2", t
        assert t["SLURM_NTASKS_PER_NODE"] == "2", t  # Lightning insists on it
        assert t["SLURM_JOB_NAME"] == "train", t     # not bash/interactive
        assert t["SLURM_JOB_NODELIST"] == "n[1-2]", t
        assert t["SLURM_NODELIST"] == "n[1-2]", t
        assert t["SLURM_STEP_NODELIST"] == "n[1-2]", t
        # Node rank: the node's index in the (step's = job's) host list.
        assert int(t["SLURM_NODEID"]) == hosts.index(t["SLURMD_NODENAME"]), t
        # Every task agrees on the master: the first host (n1).
        assert t["MASTER_ADDR"] == "n1", t
        assert t["MASTER_PORT"] == port, t

    # Global ranks 0..3 once each; block layout: rank = node * 2 + local.
    assert sorted(int(t["SLURM_PROCID"]) for t in tasks) == [0, 1, 2, 3], tasks
    for t in tasks:
        assert int(t["SLURM_PROCID"]) == 2 * int(t["SLURM_NODEID"]) + int(
            t["SLURM_LOCALID"]), t
    # Local ranks 0..1 on each node.
    for node in hosts:
        local = sorted(int(t["SLURM_LOCALID"]) for t in tasks
                       if t["SLURMD_NODENAME"] == node)
        assert local == [0, 1], (node, tasks)


def granted(err):
    m = re.search(r"^salloc: Granted job allocation (\d+)$", err, re.M)
    assert m, err
    return int(m.group(1))


def sacct_state(c, jid):
    rc, out, err = c.run(c.bin / "sacct", "-j", str(jid), "-n", "-P", "-X",
                         "-o", "JobID,State")
    assert rc == 0, err
    for line in out.splitlines():
        f = line.split("|")
        if f[0] == str(jid):
            return f[1]
    return None


def test_salloc_runs_a_step_in_its_allocation(cluster):
    c = cluster
    rc, out, err = c.run("salloc", "-N1", "srun", "printenv", "SLURM_JOB_ID")
    assert rc == 0, (out, err)
    jid = granted(err)
    assert out == f"{jid}\n", (out, err)
    assert f"salloc: Relinquishing job allocation {jid}" in err, err
    wait_for(lambda: sacct_state(c, jid) == "COMPLETED", 15,
             what=f"job {jid} COMPLETED in sacct")
    job = c.show_job(jid)
    assert job["JobState"] == "COMPLETED", job
    assert job["BatchFlag"] == "0", job  # no batch script
    # As Slurm 22.05: the allocation and its step, no .batch step.
    rc, rows, err = c.run(c.bin / "sacct", "-j", str(jid), "-n", "-P",
                          "-o", "JobID,JobName,State")
    assert rc == 0, err
    assert rows.splitlines() == [f"{jid}|interactive|COMPLETED",
                                 f"{jid}.0|printenv|COMPLETED"], rows


def test_salloc_no_shell_leaves_a_running_job(cluster):
    c = cluster
    rc, out, err = c.run("salloc", "-N1", "--no-shell", timeout=30)
    assert rc == 0, (out, err)
    jid = granted(err)
    job = c.show_job(jid)
    assert job["JobState"] == "RUNNING", job
    assert job["JobName"] == "no-shell", job  # Slurm's name for it
    assert sacct_state(c, jid) == "RUNNING"
    c.ok("scancel", str(jid))
    job = c.wait_done(jid)
    assert job["JobState"] == "CANCELLED", job
    wait_for(lambda: (sacct_state(c, jid) or "").startswith("CANCELLED"), 15,
             what=f"job {jid} CANCELLED in sacct")
