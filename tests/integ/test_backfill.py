"""Backfill on a real cluster: a short job starts in the hole before the top
job's planned start, a long one that would delay it does not; squeue
--start shows the planned start and nodes; sbatch --test-only predicts what
then happens; scontrol show job says what a job waiting for Resources
lacks; bad SchedulerParameters are refused by drover-ctld -t."""
import datetime
import re

from conftest import wait_for

SETS = {"SchedulerParameters": "bf_interval=1,bf_resolution=1", "DefMemPerCPU": "100"}


def one_node(make_cluster, cpus=4):
    c = make_cluster(nodes=1, sets=SETS, start=False)
    c.up(extra=("--cpus", str(cpus)))
    wait_for(lambda: "IDLE" in c.show_node("n1")["State"], 20, what="n1 up")
    return c


def epoch(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S").timestamp()


def test_short_job_backfills_long_one_waits(make_cluster):
    c = one_node(make_cluster)
    # A holds half the node for 20 s; B wants all of it, so it is planned
    # at A's end; C (2 CPUs, 5 s) fits in the hole before B's start; D
    # (2 CPUs, 60 s) would delay B and must not start.
    a = c.sbatch("-c", "2", "-t", "0:20", "--wrap", "sleep 100")
    job_a = c.wait_state(a, "RUNNING")
    b = c.sbatch("-c", "4", "-t", "0:20", "--wrap", "true")
    d = c.sbatch("-c", "2", "-t", "1:00", "--wrap", "sleep 1")
    e = c.sbatch("-c", "2", "-t", "0:05", "--wrap", "sleep 1")
    job_e = c.wait_done(e, timeout=30)
    assert job_e["JobState"] == "COMPLETED", job_e
    planned = c.show_job(b)
    assert planned["JobState"] == "PENDING", planned
    start_b = epoch(planned["StartTime"])
    assert abs(start_b - (epoch(job_a["StartTime"]) + 20)) <= 2, (planned, job_a)
    assert planned.get("SchedNodeList") == "n1", planned
    assert c.state(d) == "PENDING"
    # squeue --start: Slurm's columns, B first (the earliest start)
    out = c.ok("squeue", "--start")
    lines = out.splitlines()
    assert lines[0].split() == ["JOBID", "PARTITION", "NAME", "USER", "ST",
                                "START_TIME", "NODES", "SCHEDNODES",
                                "NODELIST(REASON)"], out
    rows = [ln.split() for ln in lines[1:]]
    assert [int(r[0]) for r in rows][0] == b, out
    assert rows[0][5] == planned["StartTime"] and rows[0][7] == "n1", out
    # D starts only once B has had its turn
    job_b = c.wait_done(b, timeout=60)
    job_d = c.wait_state(d, ("RUNNING", "COMPLETED"), timeout=60)
    assert epoch(job_d["StartTime"]) >= epoch(job_b["StartTime"]), (job_b, job_d)


def test_test_only_predicts_the_start(make_cluster):
    c = one_node(make_cluster)
    a = c.sbatch("-c", "4", "-t", "0:15", "--wrap", "sleep 100")
    job_a = c.wait_state(a, "RUNNING")
    rc, out, err = c.run("sbatch", "--test-only", "-c", "2", "-t", "0:10",
                         "--wrap", "true")
    assert rc == 0, err
    assert out == "", out
    m = re.fullmatch(r"sbatch: Job (\d+) to start at (\S+) using (\d+) processors "
                     r"on nodes (\S+) in partition (\S+)\n", err)
    assert m, err
    predicted = epoch(m.group(2))
    assert abs(predicted - (epoch(job_a["StartTime"]) + 15)) <= 2, (err, job_a)
    assert m.group(3) == "2" and m.group(4) == "n1", err
    assert c.job_ids() == [a]  # nothing was submitted
    b = c.sbatch("-c", "2", "-t", "0:10", "--wrap", "true")
    assert b == int(m.group(1))  # the id it said the job would get
    job_b = c.wait_done(b, timeout=60)
    assert abs(epoch(job_b["StartTime"]) - predicted) <= 4, (job_b, err)


def test_test_only_on_an_idle_node_starts_now(make_cluster):
    c = one_node(make_cluster)
    rc, out, err = c.run("sbatch", "--test-only", "-c", "3", "--wrap", "true")
    assert rc == 0, err
    m = re.fullmatch(r"sbatch: Job \d+ to start at (\S+) using 3 processors on "
                     r"nodes n1 in partition (\S+)\n", err)
    assert m, err
    assert abs(epoch(m.group(1)) - datetime.datetime.now().timestamp()) <= 3, err
    rc, out, err = c.run("sbatch", "--test-only", "-c", "9", "--wrap", "true")
    assert rc == 1, (out, err)
    assert "Requested node configuration is not available" in err, err
    assert c.job_ids() == []


def test_waiting_for_resources_says_what_it_lacks(make_cluster):
    c = one_node(make_cluster, cpus=2)
    a = c.sbatch("-c", "2", "-t", "0:30", "--wrap", "sleep 100")
    c.wait_state(a, "RUNNING")
    b = c.sbatch("-c", "1", "--wrap", "true")
    job = wait_for(lambda: (j := c.show_job(b)).get("Reason") == "Resources" and j,
                   20, what="job waiting for Resources")
    assert job.get("Lacks") == "cpu", job
    c.ok("scancel", str(a))
    c.wait_done(b)


def test_bad_scheduler_parameters_refused(make_cluster):
    c = make_cluster(nodes=1, start=False,
                     sets={"SchedulerParameters": "bf_interval=abc"})
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1",
                            "--set", "SchedulerParameters=bf_interval=abc")
    assert rc != 0, out
    assert "SchedulerParameters: bf_interval='abc' is not a number" in out + err
