"""Daemons die (kill -9) and come back: nothing acknowledged is lost, jobs
survive their noded, a node that stays away goes DOWN, admin state sticks,
and `drover up` / `drover status` / `drover down` handle half-dead clusters."""

import json
import re
import sqlite3

from conftest import pid_alive, wait_for


def test_ctld_kill9_with_running_and_pending_jobs(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=("--cpus", "1"))  # one CPU: the others wait behind the running job
    c.write("run.sh", "#!/bin/bash\n"
            "echo started\n"
            "while [ ! -e go ]; do sleep 0.1; done\n"
            "echo finished\n")
    running = c.sbatch("run.sh")
    c.wait_state(running, "RUNNING")
    pending = [c.sbatch("--wrap", f"echo pending {i}") for i in range(3)]
    for jid in pending:
        assert c.state(jid) == "PENDING"
    before = c.job_ids()
    assert before == sorted([running] + pending)

    c.kill9("ctld")
    rc, out, err = c.drover("status", "--dir", c.dir)
    assert rc == 3
    assert re.search(r"^ctld\s+-\s+stopped$", out, re.M), out

    c.up()  # restarts only ctld
    assert c.job_ids() == before, "jobs lost across a ctld kill -9"
    assert c.state(running) == "RUNNING"
    (c.work / "go").touch()
    for jid in [running] + pending:
        assert c.wait_done(jid, 40)["JobState"] == "COMPLETED"
    assert (c.work / f"slurm-{running}.out").read_text() == "started\nfinished\n"
    for i, jid in enumerate(pending):
        assert (c.work / f"slurm-{jid}.out").read_text() == f"pending {i}\n"
    new = c.sbatch("--wrap", "true")
    assert new > max(before), "job ids must never be reused"


def test_noded_kill9_job_survives_and_is_reported(make_cluster):
    c = make_cluster(nodes=1, sets={"SlurmdTimeout": "20"})
    c.write("job.sh", "#!/bin/bash\n"
            "echo started\n"
            "while [ ! -e go ]; do sleep 0.1; done\n"
            "echo survived\n")
    jid = c.sbatch("job.sh")
    c.wait_state(jid, "RUNNING")
    wait_for(lambda: (c.work / f"slurm-{jid}.out").exists(), 10, what="job output")
    c.kill9("n1")
    # The job goes on and finishes while its noded is dead ...
    (c.work / "go").touch()
    wait_for(lambda: "survived" in (c.work / f"slurm-{jid}.out").read_text(), 10,
             what="the job to finish without its noded")
    assert c.state(jid) == "RUNNING"
    # ... and is reported once noded is back.
    c.up()
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "COMPLETED", job
    assert job["ExitCode"] == "0:0"


def test_node_that_stays_away_goes_down_and_job_ends_node_fail(make_cluster):
    c = make_cluster(nodes=2, sets={"SlurmdTimeout": "3"})
    c.write("job.sh", "#!/bin/bash\nsleep 120\n")
    # --no-requeue: with JobRequeue=1 it would be requeued (test_requeue.py)
    jid = c.sbatch("--no-requeue", "job.sh")
    job = c.wait_state(jid, "RUNNING")
    node = job["NodeList"]
    c.kill9(node)
    wait_for(lambda: c.show_node(node).get("State", "").startswith("DOWN"), 20,
             what=f"{node} to go DOWN")
    job = c.wait_state(jid, "NODE_FAIL", 20)
    assert job["JobState"] == "NODE_FAIL"
    other = "n2" if node == "n1" else "n1"
    assert not c.show_node(other).get("State", "").startswith("DOWN")


def test_drain_is_avoided_and_survives_ctld_restart(make_cluster):
    c = make_cluster(nodes=2)
    rc, out, err = c.run("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=x")
    assert rc == 0, err
    node = c.show_node("n1")
    assert "DRAIN" in node["State"], node
    assert node.get("Reason", "").startswith("x")
    jobs = [c.sbatch("--wrap", "sleep 0.5") for _ in range(3)]
    for jid in jobs:
        job = c.wait_done(jid, 40)
        assert job["JobState"] == "COMPLETED"
        assert job["NodeList"] == "n2", f"job {jid} ran on drained {job['NodeList']}"

    c.kill9("ctld")
    c.up()
    node = c.show_node("n1")
    assert "DRAIN" in node["State"], f"drain lost across a ctld restart: {node}"
    assert node.get("Reason", "").startswith("x")

    c.ok("scontrol", "update", "NodeName=n1", "State=RESUME")
    wait_for(lambda: "DRAIN" not in c.show_node("n1")["State"], 10, what="n1 resumed")


def test_second_up_on_half_dead_cluster_starts_only_what_is_missing(make_cluster):
    c = make_cluster(nodes=2)
    rc, out, err = c.drover("status", "--dir", c.dir)
    assert rc == 0, out + err
    assert len(re.findall(r"\brunning$", out, re.M)) == 4  # authd, ctld, n1, n2
    others = {n: c.pid(n) for n in ("authd", "ctld", "n1")}
    c.kill9("n2")
    rc, out, err = c.drover("status", "--dir", c.dir)
    assert rc == 3
    assert re.search(r"^noded n2\s+-\s+stopped$", out, re.M), out
    assert re.search(rf"^noded n1\s+{others['n1']}\s+running$", out, re.M), out

    rc, out, err = c.drover("up", "--dir", c.dir)
    assert rc == 0, err
    assert "started noded n2" in err
    assert "started ctld" not in err and "started noded n1" not in err
    for name, pid in others.items():
        assert c.pid(name) == pid and pid_alive(pid), f"{name} was restarted"
    rc, out, err = c.drover("status", "--dir", c.dir)
    assert rc == 0, out
    jid = c.sbatch("-N", "2", "--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"


def test_down_stops_daemons_and_jobs_and_is_idempotent(cluster):
    cluster.write("job.sh", "#!/bin/bash\nsleep 300 &\necho $$ $! > pids\nwait\n")
    jid = cluster.sbatch("job.sh")
    cluster.wait_state(jid, "RUNNING")
    pidfile = cluster.work / "pids"
    wait_for(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2, 10,
             what="job pids")
    job_pids = [int(p) for p in pidfile.read_text().split()]
    daemons = [cluster.pid(n) for n in ("authd", "ctld", "n1", "n2")]
    rc, out, err = cluster.down()
    assert rc == 0, err
    assert out == ""
    for pid in daemons + job_pids:
        wait_for(lambda: not pid_alive(pid), 5, what=f"pid {pid} gone")
    rc, out, err = cluster.drover("status", "--dir", cluster.dir)
    assert rc == 3
    assert "running" not in out
    rc, out, err = cluster.down()
    assert rc == 0, err


def test_down_works_when_the_config_no_longer_loads(cluster):
    jid = cluster.sbatch("--wrap", "sleep 300")
    cluster.wait_state(jid, "RUNNING")
    daemons = [cluster.pid(n) for n in ("authd", "ctld", "n1", "n2")]
    cluster.conf.write_text(cluster.conf.read_text() + "this is not a config line\n")
    rc, out, err = cluster.down()
    assert rc == 0, err
    assert "drover.conf" in err  # says what was wrong with it
    for pid in daemons:
        wait_for(lambda: not pid_alive(pid), 5, what=f"pid {pid} gone")
    shepherds = list((cluster.dir / "spool").glob("*/job.*/shepherd.pid"))
    assert shepherds, "expected the job's spool dir"
    for sp in shepherds:
        pid = int(sp.read_text().split()[0])
        wait_for(lambda: not pid_alive(pid), 5, what=f"shepherd {pid} gone")


def test_a_stored_job_with_a_field_another_version_wrote_is_kept(make_cluster):
    """A payload field that breaks its declaration (say, a comment a newer
    version stored as a number) costs that field, not the job."""
    c = make_cluster(nodes=1)
    jid = c.sbatch("-H", "--comment", "kept", "--wrap", "true")
    c.kill9("ctld")
    db = sqlite3.connect(next(c.dir.rglob("drover.db")))
    rec = json.loads(db.execute("SELECT rec FROM jobs WHERE id=?", (jid,)).fetchone()[0])
    rec["comment"] = 5
    db.execute("UPDATE jobs SET rec=? WHERE id=?", (json.dumps(rec), jid))
    db.commit()
    db.close()
    c.up()
    job = c.show_job(jid)
    assert job["JobState"] == "PENDING" and job["Reason"] == "JobHeldUser", job
    assert "Comment" not in job or job["Comment"] in ("(null)", ""), job
    assert re.search(rf"job {jid}: job: field 'comment': must be a string: kept", c.log()), \
        c.log()[-2000:]
