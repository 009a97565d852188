"""Consumable resources on a real cluster: jobs share nodes by CPUs, memory
and GPUs; strict priority gives the blocked job Resources and the ones
behind it Priority; GPU indices never overlap; requests no node can hold
are refused at submit; afterok, --nice and partition time limits."""

from conftest import wait_for


def one_node(make_cluster, cpus=4, gpus=0, sets=()):
    c = make_cluster(nodes=1, start=False, sets=sets)
    extra = ["--cpus", str(cpus), "--mem", str(cpus * 1000)]
    if gpus:
        extra += ["--gpus", str(gpus)]
    c.up(extra=tuple(extra))
    return c


def hold_script(c):
    return c.write("hold.sh", "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\n")


def test_jobs_share_a_node_by_cpus(make_cluster):
    c = one_node(make_cluster)
    hold_script(c)
    jobs = [c.sbatch("hold.sh") for _ in range(4)]
    for jid in jobs:
        assert c.wait_state(jid, "RUNNING")["NodeList"] == "n1"
    node = c.show_node("n1")
    assert node["State"] == "ALLOCATED" and node["CPUAlloc"] == "4", node
    (c.work / "go").touch()
    for jid in jobs:
        assert c.wait_done(jid)["JobState"] == "COMPLETED"


def test_blocked_job_waits_for_resources_and_lower_ones_for_priority(make_cluster):
    c = one_node(make_cluster)
    hold_script(c)
    big = c.sbatch("-c", "3", "hold.sh")
    c.wait_state(big, "RUNNING")
    assert c.show_node("n1")["State"] == "MIXED"
    blocked = c.sbatch("-c", "2", "hold.sh")
    behind = c.sbatch("-c", "1", "hold.sh")  # would fit, but must not jump ahead
    wait_for(lambda: c.show_job(blocked)["Reason"] == "Resources", 10, what="Resources")
    wait_for(lambda: c.show_job(behind)["Reason"] == "Priority", 10, what="Priority")
    assert c.state(behind) == "PENDING"
    (c.work / "go").touch()
    for jid in (big, blocked, behind):
        assert c.wait_done(jid)["JobState"] == "COMPLETED"


def test_gpu_indices_are_disjoint(make_cluster):
    c = one_node(make_cluster, cpus=4, gpus=4)
    c.write("gpu.sh", "#!/bin/sh\necho $CUDA_VISIBLE_DEVICES\n"
            "while [ ! -e go ]; do sleep 0.1; done\n")
    a = c.sbatch("--gres=gpu:2", "gpu.sh")
    b = c.sbatch("--gpus=2", "gpu.sh")
    third = c.sbatch("--gres=gpu:1", "gpu.sh")
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")
    wait_for(lambda: c.show_job(third)["Reason"] == "Resources", 10, what="Resources")
    outs = {}
    for jid in (a, b):
        f = c.work / f"slurm-{jid}.out"
        wait_for(lambda: f.exists() and f.read_text().strip(), 10, what="output")
        outs[jid] = set(f.read_text().strip().split(","))
    assert len(outs[a]) == 2 and len(outs[b]) == 2
    assert outs[a].isdisjoint(outs[b])
    assert outs[a] | outs[b] == {"0", "1", "2", "3"}
    (c.work / "go").touch()
    assert c.wait_done(third)["JobState"] == "COMPLETED"


def test_impossible_requests_are_refused_at_submit(make_cluster):
    c = one_node(make_cluster, cpus=4, gpus=2)
    before = c.job_ids()
    cases = [(["-c", "5"], "Requested node configuration is not available"),
             (["--mem=999999"], "Requested node configuration is not available"),
             (["--gres=gpu:3"], "Requested node configuration is not available"),
             (["--gres=gpu:h100:1"], "Invalid generic resource (gres) specification"),
             (["-N", "2"], "Requested node configuration is not available"),
             (["--dependency=afterok:abc"], "Job dependency problem")]
    for args, message in cases:
        rc, out, err = c.run("sbatch", *args, "--wrap", "true")
        assert rc == 1, (args, out, err)
        assert err == f"sbatch: error: Batch job submission failed: {message}\n", (args, err)
        assert out == ""
    assert c.job_ids() == before


def test_whole_node_memory_waits_for_an_empty_node(make_cluster):
    c = one_node(make_cluster)
    hold_script(c)
    small = c.sbatch("hold.sh")
    c.wait_state(small, "RUNNING")
    whole = c.sbatch("--mem=0", "--wrap", "true")
    wait_for(lambda: c.show_job(whole)["Reason"] == "Resources", 10, what="Resources")
    (c.work / "go").touch()
    assert c.wait_done(whole)["JobState"] == "COMPLETED"


def test_afterok_waits_then_starts_and_failure_is_never_satisfied(make_cluster):
    c = one_node(make_cluster)
    hold_script(c)
    first = c.sbatch("hold.sh")
    after = c.sbatch(f"--dependency=afterok:{first}", "--wrap", "echo after")
    fails = c.sbatch("--wrap", "exit 3")
    never = c.sbatch(f"--dependency=afterok:{fails}", "--wrap", "true")
    wait_for(lambda: c.show_job(after)["Reason"] == "Dependency", 10, what="Dependency")
    assert c.wait_done(fails)["JobState"] == "FAILED"
    wait_for(lambda: c.show_job(never)["Reason"] == "DependencyNeverSatisfied", 10,
             what="DependencyNeverSatisfied")
    assert c.state(after) == "PENDING"
    (c.work / "go").touch()
    assert c.wait_done(after)["JobState"] == "COMPLETED"
    assert (c.work / f"slurm-{after}.out").read_text() == "after\n"
    assert c.state(never) == "PENDING"


def test_nice_lowers_priority(make_cluster):
    c = one_node(make_cluster, cpus=1)
    hold_script(c)
    running = c.sbatch("hold.sh")
    c.wait_state(running, "RUNNING")
    nice = c.sbatch("--nice=100", "--wrap", "true")
    plain = c.sbatch("--wrap", "true")
    assert int(c.show_job(plain)["Priority"]) > int(c.show_job(nice)["Priority"])
    (c.work / "go").touch()
    first_done = wait_for(lambda: [j for j in (nice, plain) if c.state(j) == "COMPLETED"],
                          30, what="a job to complete")
    assert first_done[0] == plain or c.show_job(plain)["StartTime"] <= \
        c.show_job(nice)["StartTime"]


def test_partition_time_limit_waits_or_is_refused(make_cluster):
    part = "PartitionName=debug Nodes=ALL Default=YES MaxTime=1:00 State=UP"
    c = make_cluster(nodes=1, sets={"PartitionName": part.split("=", 1)[1]})
    jid = c.sbatch("-t", "5:00", "--wrap", "true")
    wait_for(lambda: c.show_job(jid)["Reason"] == "PartitionTimeLimit", 10,
             what="PartitionTimeLimit")
    assert c.state(jid) == "PENDING"
    ok = c.sbatch("-t", "0:30", "--wrap", "true")
    assert c.wait_done(ok)["JobState"] == "COMPLETED"

    strict = make_cluster(nodes=1, sets={"PartitionName": part.split("=", 1)[1],
                                         "EnforcePartLimits": "ALL"})
    rc, out, err = strict.run("sbatch", "-t", "5:00", "--wrap", "true")
    assert rc == 1
    assert err == ("sbatch: error: Batch job submission failed: Requested time limit is "
                   "invalid (missing or exceeds some limit)\n")
