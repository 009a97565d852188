"""The batch step's environment, variable by variable, for a few submit
shapes, with the values and the conditions Slurm sets them under (sbatch(1)
OUTPUT ENVIRONMENT VARIABLES); and the job's files: %J %A %a, -i and
--open-mode. Resource values are computed by ctld; the shepherd sets them."""

import os
import pwd

import pytest

# Every variable a shape may set; the job prints each, or <unset>.
VARS = ["SLURM_NTASKS", "SLURM_NPROCS", "SLURM_NTASKS_PER_NODE",
        "SLURM_TASKS_PER_NODE", "SLURM_CPUS_ON_NODE", "SLURM_CPUS_PER_TASK",
        "SLURM_JOB_CPUS_PER_NODE", "SLURM_MEM_PER_NODE", "SLURM_MEM_PER_CPU",
        "SLURM_JOB_USER", "SLURM_JOB_UID", "SLURM_JOB_GID", "SLURM_JOB_ACCOUNT",
        "SLURM_JOB_QOS", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID",
        "SLURM_RESTART_COUNT", "SLURM_GTIDS", "SLURM_TASK_PID", "SLURM_PRIO_PROCESS",
        "SLURM_TOPOLOGY_ADDR", "SLURM_TOPOLOGY_ADDR_PATTERN", "SLURM_UMASK",
        "SLURM_GPUS_ON_NODE", "SLURM_JOB_GPUS", "GPU_DEVICE_ORDINAL",
        "CUDA_VISIBLE_DEVICES", "SLURM_GPUS", "SLURM_GPUS_PER_NODE",
        "SLURM_JOB_NUM_NODES", "SLURM_JOB_NODELIST", "SLURMD_NODENAME", "SLURM_JOB_ID"]

UNSET = "<unset>"
# Set only when their option was given (or, for GPUs, GPUs were allocated).
CONDITIONAL = ["SLURM_NTASKS", "SLURM_NPROCS", "SLURM_NTASKS_PER_NODE",
               "SLURM_CPUS_PER_TASK", "SLURM_MEM_PER_NODE", "SLURM_MEM_PER_CPU",
               "SLURM_JOB_ACCOUNT", "SLURM_RESTART_COUNT", "SLURM_GPUS_ON_NODE",
               "SLURM_JOB_GPUS", "GPU_DEVICE_ORDINAL", "CUDA_VISIBLE_DEVICES",
               "SLURM_GPUS", "SLURM_GPUS_PER_NODE"]


def env_job(c, *args):
    """Runs the printing script with sbatch args; returns (env, job)."""
    lines = "".join(f'echo "{v}=${{{v}-{UNSET}}}"\n' for v in VARS)
    c.write("env.sh", "#!/bin/bash\necho \"SHELL_PID=$$\"\n" + lines)
    jid = c.sbatch("-o", "env-%j.out", *args, "env.sh")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    text = (c.work / f"env-{jid}.out").read_text()
    env = dict(line.split("=", 1) for line in text.splitlines())
    return env, job


def check(env, want):
    """want: exact values; every CONDITIONAL variable not in want must be unset."""
    for k in CONDITIONAL:
        want.setdefault(k, UNSET)
    bad = {k: (env.get(k), v) for k, v in want.items() if env.get(k) != v}
    assert not bad, "got, want: " + repr(bad)


def common(c, env, job):
    """What every batch step has, whatever the shape."""
    umask = os.umask(0)
    os.umask(umask)
    node = job["BatchHost"] if "BatchHost" in job else env["SLURMD_NODENAME"]
    return {
        "SLURM_JOB_USER": pwd.getpwuid(os.getuid()).pw_name,
        "SLURM_JOB_UID": str(os.getuid()), "SLURM_JOB_GID": str(os.getgid()),
        "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NODEID": "0",
        "SLURM_GTIDS": "0", "SLURM_TASK_PID": env["SHELL_PID"],
        "SLURM_PRIO_PROCESS": str(os.getpriority(os.PRIO_PROCESS, 0)),
        "SLURM_TOPOLOGY_ADDR": node, "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
        "SLURM_UMASK": f"{umask:04o}", "SLURMD_NODENAME": node,
        # the user's DefaultAccount when none is given: root's is root (its
        # association always exists), others have none until sacctmgr adds them
        **({"SLURM_JOB_ACCOUNT": "root"} if os.getuid() == 0 else {}),
    }


@pytest.fixture
def big(make_cluster):
    """Two nodes of 8 CPUs: room for every CPU shape."""
    c = make_cluster(nodes=2, start=False)
    c.up(extra=("--cpus", "8"))
    return c


def test_plain_job_sets_only_the_unconditional_variables(big):
    env, job = env_job(big)
    check(env, dict(common(big, env, job), **{
        "SLURM_TASKS_PER_NODE": "1", "SLURM_CPUS_ON_NODE": "1",
        "SLURM_JOB_CPUS_PER_NODE": "1", "SLURM_JOB_QOS": "normal",
        # drover up writes a DefMemPerCPU: memory is then per CPU, as in Slurm.
        "SLURM_MEM_PER_CPU": env.get("SLURM_MEM_PER_CPU")}))
    assert env["SLURM_MEM_PER_CPU"] != UNSET


def test_ntasks_and_cpus_per_task(big):
    env, job = env_job(big, "-n", "2", "-c", "2")
    check(env, dict(common(big, env, job), **{
        "SLURM_NTASKS": "2", "SLURM_NPROCS": "2", "SLURM_CPUS_PER_TASK": "2",
        "SLURM_TASKS_PER_NODE": "2", "SLURM_CPUS_ON_NODE": "4",
        "SLURM_JOB_CPUS_PER_NODE": "4", "SLURM_JOB_QOS": "normal",
        "SLURM_MEM_PER_CPU": env.get("SLURM_MEM_PER_CPU")}))


def test_ntasks_per_node_on_two_nodes(big):
    env, job = env_job(big, "--ntasks-per-node=2", "-N", "2")
    # sbatch turns -N 2 --ntasks-per-node=2 into 4 tasks, so NTASKS is set.
    check(env, dict(common(big, env, job), **{
        "SLURM_NTASKS": "4", "SLURM_NPROCS": "4", "SLURM_NTASKS_PER_NODE": "2",
        "SLURM_TASKS_PER_NODE": "2(x2)", "SLURM_CPUS_ON_NODE": "2",
        "SLURM_JOB_CPUS_PER_NODE": "2(x2)", "SLURM_JOB_NUM_NODES": "2",
        "SLURM_JOB_NODELIST": "n[1-2]", "SLURM_JOB_QOS": "normal",
        "SLURM_MEM_PER_CPU": env.get("SLURM_MEM_PER_CPU")}))


def test_mem_per_node(big):
    env, job = env_job(big, "--mem=100")
    check(env, dict(common(big, env, job), **{
        "SLURM_MEM_PER_NODE": "100", "SLURM_TASKS_PER_NODE": "1",
        "SLURM_CPUS_ON_NODE": "1", "SLURM_JOB_CPUS_PER_NODE": "1",
        "SLURM_JOB_QOS": "normal"}))


def test_mem_per_cpu(big):
    env, job = env_job(big, "--mem-per-cpu=50")
    check(env, dict(common(big, env, job), **{
        "SLURM_MEM_PER_CPU": "50", "SLURM_TASKS_PER_NODE": "1",
        "SLURM_CPUS_ON_NODE": "1", "SLURM_JOB_CPUS_PER_NODE": "1",
        "SLURM_JOB_QOS": "normal"}))


def test_account_and_qos(big):
    env, job = env_job(big, "-A", "acct", "--qos=q", "--mem=10")
    check(env, dict(common(big, env, job), **{
        "SLURM_JOB_ACCOUNT": "acct", "SLURM_JOB_QOS": "q",
        "SLURM_MEM_PER_NODE": "10", "SLURM_TASKS_PER_NODE": "1",
        "SLURM_CPUS_ON_NODE": "1", "SLURM_JOB_CPUS_PER_NODE": "1"}))


@pytest.fixture
def gpus(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=("--cpus", "8", "--gpus", "4"))
    return c


def test_gres_gpu(gpus):
    env, job = env_job(gpus, "--gres=gpu:2", "--mem=10")
    # Alone on the node, the job gets the first two; without a device
    # constraint CUDA_VISIBLE_DEVICES holds the same global indices.
    check(env, dict(common(gpus, env, job), **{
        "SLURM_GPUS_ON_NODE": "2", "SLURM_JOB_GPUS": "0,1",
        "GPU_DEVICE_ORDINAL": "0,1", "CUDA_VISIBLE_DEVICES": "0,1",
        "SLURM_MEM_PER_NODE": "10", "SLURM_TASKS_PER_NODE": "1",
        "SLURM_CPUS_ON_NODE": "1", "SLURM_JOB_CPUS_PER_NODE": "1",
        "SLURM_JOB_QOS": "normal",
        # Whether --gres counts as --gpus-per-node is Slurm-version specific.
        "SLURM_GPUS_PER_NODE": env.get("SLURM_GPUS_PER_NODE")}))


def test_gpus_and_gpus_per_node(gpus):
    env, job = env_job(gpus, "--gpus=1", "--mem=10")
    assert env["SLURM_GPUS"] == "1" and env["SLURM_GPUS_ON_NODE"] == "1"
    assert env["SLURM_JOB_GPUS"] == env["CUDA_VISIBLE_DEVICES"] == "0"
    assert env["SLURM_GPUS_PER_NODE"] == UNSET
    env, job = env_job(gpus, "--gpus-per-node=3", "--mem=10")
    assert env["SLURM_GPUS_PER_NODE"] == "3" and env["SLURM_GPUS"] == UNSET
    assert env["SLURM_JOB_GPUS"] == env["GPU_DEVICE_ORDINAL"] == "0,1,2"


# -- files ------------------------------------------------------------------

def test_output_patterns_J_A_a(cluster):
    cluster.write("p.sh", "#!/bin/bash\necho patterned\n")
    jid = cluster.sbatch("-o", "o-%J-%A-%a-%5a.txt", "-e", "e-%A_%a.txt", "p.sh")
    assert cluster.wait_done(jid)["JobState"] == "COMPLETED"
    # Outside arrays %A is the job id and %a Slurm's NO_VAL - 1.
    out = cluster.work / f"o-{jid}.batch-{jid}-4294967294-4294967294.txt"
    assert out.read_text() == "patterned\n"
    assert (cluster.work / f"e-{jid}_4294967294.txt").exists()


def test_open_mode_append_across_two_jobs(cluster):
    shared = cluster.work / "shared.out"
    shared.write_text("kept\n")
    for word in ("first", "second"):
        jid = cluster.sbatch("--open-mode=append", "-o", "shared.out",
                             "--wrap", f"echo {word}")
        assert cluster.wait_done(jid)["JobState"] == "COMPLETED"
    assert shared.read_text() == "kept\nfirst\nsecond\n"
    jid = cluster.sbatch("--open-mode=truncate", "-o", "shared.out", "--wrap", "echo new")
    assert cluster.wait_done(jid)["JobState"] == "COMPLETED"
    assert shared.read_text() == "new\n"


def test_input_file(cluster):
    (cluster.work / "in-data.txt").write_text("three\nlines\nhere\n")
    cluster.write("in.sh", "#!/bin/bash\nwc -l\n")
    jid = cluster.sbatch("-i", "in-%x.txt", "-J", "data", "-o", "in.out", "in.sh")
    assert cluster.wait_done(jid)["JobState"] == "COMPLETED"
    assert (cluster.work / "in.out").read_text().strip() == "3"
    # Without -i the job reads /dev/null: cat ends at once.
    jid = cluster.sbatch("-o", "null.out", "--wrap", "cat; echo eof")
    assert cluster.wait_done(jid)["JobState"] == "COMPLETED"
    assert (cluster.work / "null.out").read_text() == "eof\n"


def test_missing_input_file_fails_the_job(cluster):
    jid = cluster.sbatch("-i", "nosuch.txt", "-o", "miss.out", "--wrap", "echo ran")
    job = cluster.wait_done(jid)
    assert job["JobState"] == "FAILED", job
    text = (cluster.work / "miss.out").read_text()
    assert "Could not open stdin file nosuch.txt: No such file or directory" in text
    assert "ran" not in text
