"""What partitions, node weights and licenses make the scheduler do, on a
real cluster: a job short of licenses waits with reason Licenses and starts
when they are freed; -p a,b starts in b when a is full (SLURM_JOB_PARTITION
says so) and shows a,b again once requeued; the lowest Weight node is
filled first; a higher PriorityTier partition's job goes first on shared
nodes, and a job's higher-tier candidate is tried first; MaxCPUsPerNode caps what a partition's jobs hold on a node;
OverSubscribe=FORCE:2 lets two jobs share a CPU; without
EnforcePartLimits a job over MaxTime waits with PartitionTimeLimit."""

import re

from conftest import wait_for

BASE = {"SchedulerParameters": "bf_interval=1,bf_resolution=1", "DefMemPerCPU": "10"}


def cluster(make_cluster, nodes=1, cpus=2, sets=()):
    c = make_cluster(nodes=nodes, sets=dict(BASE, **dict(sets)), start=False)
    c.up(extra=("--cpus", str(cpus)))
    for n in range(1, nodes + 1):
        wait_for(lambda n=n: "IDLE" in c.show_node(f"n{n}")["State"], 20,
                 what=f"n{n} up")
    return c


def restart_ctld(c):
    c.kill9("ctld")
    c.up()


def hold_until_go(c, name="go"):
    return f"while [ ! -e {name} ]; do sleep 0.1; done"


def test_job_waits_for_licenses(make_cluster):
    c = cluster(make_cluster, cpus=4, sets={"Licenses": "matlab:2"})
    a = c.sbatch("-L", "matlab:2", "--wrap", hold_until_go(c))
    c.wait_state(a, "RUNNING")
    b = c.sbatch("-L", "matlab:1", "--wrap", "true")
    wait_for(lambda: c.show_job(b).get("Reason") == "Licenses", 20,
             what="job b waiting for a license")
    assert c.state(b) == "PENDING"  # CPUs are free: only the license lacks
    # squeue -L: the jobs asking for any of the licenses named
    assert sorted(c.ok("squeue", "-h", "-L", "matlab", "-o", "%i").split()) == [str(a), str(b)]
    assert c.ok("squeue", "-h", "-L", "other,none", "-o", "%i") == ""
    (c.work / "go").touch()
    assert c.wait_done(b)["JobState"] == "COMPLETED"


def test_second_candidate_partition_starts_the_job(make_cluster):
    c = cluster(make_cluster, nodes=2, cpus=2)
    c.ok("scontrol", "create", "PartitionName=a", "Nodes=n1")
    c.ok("scontrol", "create", "PartitionName=b", "Nodes=n2")
    full = c.sbatch("-p", "a", "-c", "2", "--wrap", hold_until_go(c))
    c.wait_state(full, "RUNNING")
    jid = c.sbatch("-p", "a,b", "-c", "2", "-o", "out-%j",
                   "--wrap", "echo $SLURM_JOB_PARTITION")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    assert job["Partition"] == "b" and job["NodeList"] == "n2", job
    assert (c.work / f"out-{jid}").read_text() == "b\n"
    # requeued (held, so that it stays), it shows its candidates again
    c.ok("scontrol", "requeuehold", str(jid))
    wait_for(lambda: c.show_job(jid)["JobState"] == "PENDING", 20, what="requeued")
    assert c.show_job(jid)["Partition"] == "a,b"
    (c.work / "go").touch()


def test_lowest_weight_node_is_filled_first(make_cluster):
    c = cluster(make_cluster, nodes=2, cpus=2)
    conf = re.sub(r"^(NodeName=n1 .*)$", r"\1 Weight=20", c.conf.read_text(),
                  flags=re.M)
    c.conf.write_text(re.sub(r"^(NodeName=n2 .*)$", r"\1 Weight=5", conf, flags=re.M))
    restart_ctld(c)
    wait_for(lambda: all("IDLE" in c.show_node(n)["State"] for n in ("n1", "n2")),
             20, what="both nodes up")
    first = c.sbatch("-c", "1", "--wrap", hold_until_go(c))
    assert c.wait_state(first, "RUNNING")["NodeList"] == "n2"
    second = c.sbatch("-c", "1", "--wrap", hold_until_go(c))
    assert c.wait_state(second, "RUNNING")["NodeList"] == "n2"  # n2 still has room
    third = c.sbatch("-c", "1", "--wrap", hold_until_go(c))
    assert c.wait_state(third, "RUNNING")["NodeList"] == "n1"
    (c.work / "go").touch()


def test_higher_priority_tier_goes_first(make_cluster):
    c = cluster(make_cluster, cpus=2)
    c.ok("scontrol", "create", "PartitionName=urgent", "Nodes=n1", "PriorityTier=10")
    block = c.sbatch("-c", "2", "--wrap", hold_until_go(c))
    c.wait_state(block, "RUNNING")
    # each runs 2 s on the whole node, so their starts are 2 s apart
    low = c.sbatch("-c", "2", "--wrap", "sleep 2")  # submitted first, lower tier
    high = c.sbatch("-p", "urgent", "-c", "2", "--wrap", "sleep 2")
    wait_for(lambda: c.show_job(high).get("Reason") == "Resources", 20,
             what="the urgent job at the head of the queue")
    assert c.state(low) == "PENDING"
    (c.work / "go").touch()
    done_high, done_low = c.wait_done(high), c.wait_done(low)
    assert done_high["StartTime"] < done_low["StartTime"], (done_high, done_low)


def test_candidates_tried_by_priority_tier(make_cluster):
    # both could start it now: the higher tier is tried first, as in Slurm
    c = cluster(make_cluster, cpus=2)
    c.ok("scontrol", "create", "PartitionName=low", "Nodes=n1", "PriorityTier=1")
    c.ok("scontrol", "create", "PartitionName=high", "Nodes=n1", "PriorityTier=5")
    jid = c.sbatch("-p", "low,high", "--wrap", "true")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED" and job["Partition"] == "high", job


def test_max_cpus_per_node_caps_a_partition(make_cluster):
    c = cluster(make_cluster, cpus=4)
    c.ok("scontrol", "create", "PartitionName=capped", "Nodes=n1", "MaxCPUsPerNode=2")
    a = c.sbatch("-p", "capped", "-c", "2", "--wrap", hold_until_go(c))
    c.wait_state(a, "RUNNING")
    b = c.sbatch("-p", "capped", "-c", "1", "--wrap", "true")
    wait_for(lambda: c.show_job(b).get("Reason") in ("Resources", "Priority"), 20,
             what="the capped partition's second job waiting")
    other = c.sbatch("-c", "2", "--wrap", "true")  # the node's other CPUs
    assert c.wait_done(other)["JobState"] == "COMPLETED"
    assert c.state(b) == "PENDING"
    (c.work / "go").touch()
    assert c.wait_done(b)["JobState"] == "COMPLETED"


def test_oversubscribe_force_shares_cpus(make_cluster):
    c = cluster(make_cluster, cpus=1)
    c.ok("scontrol", "create", "PartitionName=shared", "Nodes=n1",
         "OverSubscribe=FORCE:2")
    a = c.sbatch("-p", "shared", "--wrap", hold_until_go(c))
    b = c.sbatch("-p", "shared", "--wrap", hold_until_go(c))
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")  # both on the one CPU
    d = c.sbatch("-p", "shared", "--wrap", "true")
    wait_for(lambda: c.show_job(d).get("Reason") in ("Resources", "Priority"), 20,
             what="a third job waiting: two per CPU")
    (c.work / "go").touch()
    assert c.wait_done(d)["JobState"] == "COMPLETED"


def test_over_max_time_waits_without_enforcement(make_cluster):
    c = cluster(make_cluster, cpus=1)
    c.ok("scontrol", "update", "PartitionName=debug", "MaxTime=1")
    jid = c.sbatch("-t", "5", "--wrap", "true")
    wait_for(lambda: c.show_job(jid).get("Reason") == "PartitionTimeLimit", 20,
             what="the job waiting for its partition's MaxTime")
    c.ok("scontrol", "update", "PartitionName=debug", "MaxTime=10")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"


def test_oversubscribe_yes_shares_among_jobs_that_ask(make_cluster):
    c = cluster(make_cluster, cpus=1)
    c.ok("scontrol", "create", "PartitionName=shared", "Nodes=n1",
         "OverSubscribe=YES:2")
    a = c.sbatch("-p", "shared", "-s", "--wrap", hold_until_go(c))
    assert c.ok("squeue", "-h", "-j", str(a), "-o", "%h") == "YES\n"
    c.wait_state(a, "RUNNING")
    plain = c.sbatch("-p", "shared", "--wrap", "true")  # did not ask: waits
    wait_for(lambda: c.show_job(plain).get("Reason") in ("Resources", "Priority"),
             20, what="the job that did not ask -s waiting")
    b = c.sbatch("-p", "shared", "-s", "--wrap", hold_until_go(c))
    c.wait_state(b, "RUNNING")  # shares the CPU with a
    (c.work / "go").touch()
    assert c.wait_done(plain)["JobState"] == "COMPLETED"


def test_memory_over_max_mem_per_node_refused(make_cluster):
    c = cluster(make_cluster, cpus=2)
    c.ok("scontrol", "create", "PartitionName=small", "Nodes=n1", "MaxMemPerNode=100")
    refusal = ("sbatch: error: Batch job submission failed: Memory required by "
               "task is not available\n")
    for args in (["--mem=200"], ["--mem-per-cpu=60", "-c", "2"], ["--mem=0"]):
        assert c.run("sbatch", "-p", "small", *args, "--wrap", "true") == (
            1, "", refusal), args
    assert c.job_ids() == []
    jid = c.sbatch("-p", "small", "--mem=100", "--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"


def test_overbooked_node_takes_no_work_but_others_schedule(make_cluster):
    """A partition changed from FORCE to NO under two jobs sharing a CPU:
    their node takes nothing new until they end, the rest of the cluster
    goes on scheduling."""
    c = cluster(make_cluster, nodes=2, cpus=1)
    c.ok("scontrol", "create", "PartitionName=shared", "Nodes=n1",
         "OverSubscribe=FORCE:2")
    a = c.sbatch("-p", "shared", "--wrap", hold_until_go(c))
    b = c.sbatch("-p", "shared", "--wrap", hold_until_go(c))
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")
    c.ok("scontrol", "update", "PartitionName=shared", "OverSubscribe=NO")
    elsewhere = c.sbatch("-w", "n2", "--wrap", "true")
    assert c.wait_done(elsewhere)["JobState"] == "COMPLETED"
    here = c.sbatch("-p", "shared", "--wrap", "true")
    wait_for(lambda: c.show_job(here).get("Reason") == "Resources", 20,
             what="a job for the overbooked node waiting")
    assert "refused the snapshot" not in c.log()
    (c.work / "go").touch()
    assert c.wait_done(here)["JobState"] == "COMPLETED"
