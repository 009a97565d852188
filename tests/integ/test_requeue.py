"""Requeue (issue 5, point 4): scontrol requeue / requeuehold, --requeue and
--no-requeue, JobRequeue, SLURM_RESTART_COUNT, node failure of a running job,
and the earlier runs sacct -D shows. Slurm 22.05 is the reference: a requeued
job is PENDING with the same id, Reason=BeginTime until AuthInfo's
cred_expire + 1 seconds have passed, Restarts counts up."""

import json
import time

from conftest import wait_for


def make(make_cluster, nodes=2, cred_expire=1, **sets):
    c = make_cluster(nodes=nodes, sets=sets, start=False)
    c.sets["AuthInfo"] = (f"socket={c.dir}/run/authd.sock,key={c.dir}/drover.key,"
                          f"cred_expire={cred_expire}")
    c.up()
    return c


CHECKPOINT_JOB = """#!/bin/bash
#SBATCH --open-mode=append
echo "run restart=${SLURM_RESTART_COUNT:-none}"
n=$(cat progress 2>/dev/null || echo 0)
while [ "$n" -lt 6 ]; do
    n=$((n + 1))
    echo "$n" > progress
    echo "step $n"
    if [ "$n" -eq 3 ] && [ -z "$SLURM_RESTART_COUNT" ]; then
        touch reached3
        sleep 300
    fi
done
echo "done"
"""


def test_requeue_running_job_resumes_from_its_checkpoint(make_cluster):
    c = make(make_cluster)
    c.write("ck.sh", CHECKPOINT_JOB)
    jid = c.sbatch("-o", "out.txt", "ck.sh")
    wait_for(lambda: (c.work / "reached3").exists(), 30, what="step 3")
    c.ok("scontrol", "requeue", str(jid))
    # COMPLETING (as Slurm) while the run is killed, then PENDING
    job = c.wait_state(jid, "PENDING", 20)
    assert job["Restarts"] == "1", job
    job = c.wait_done(jid, 40)
    assert job["JobState"] == "COMPLETED", job
    assert job["Restarts"] == "1"
    out = (c.work / "out.txt").read_text()
    # appended (--open-mode=append), and the second run starts at step 4
    assert out.startswith("run restart=none\nstep 1\nstep 2\nstep 3\n"), out
    assert "run restart=1\nstep 4\nstep 5\nstep 6\ndone\n" in out, out
    # sacct: only the latest run; with -D the requeued one first
    rows = c.ok("sacct", "-X", "-n", "-P", "-j", str(jid), "-o", "JobID,State,Restarts")
    assert rows.split() == [f"{jid}|COMPLETED|1"], rows
    rows = c.ok("sacct", "-D", "-n", "-P", "-j", str(jid), "-o", "JobID,State,ExitCode")
    assert rows.split() == [f"{jid}|REQUEUED|0:0", f"{jid}.batch|CANCELLED|0:15",
                            f"{jid}|COMPLETED|0:0", f"{jid}.batch|COMPLETED|0:0"], rows


def test_requeued_job_waits_begin_time_and_output_is_truncated_by_default(make_cluster):
    c = make(make_cluster, cred_expire=4)
    c.write("j.sh", "#!/bin/bash\necho run ${SLURM_RESTART_COUNT:-0}\nsleep 300\n")
    jid = c.sbatch("-o", "o.txt", "j.sh")
    c.wait_state(jid, "RUNNING")
    wait_for(lambda: (c.work / "o.txt").exists() and
             "run 0" in (c.work / "o.txt").read_text(), 20, what="first run")
    c.ok("scontrol", "requeue", str(jid))
    out = c.ok("squeue", "-h", "-j", str(jid), "-o", "%T %r")
    assert out.split()[0] in ("PENDING", "COMPLETING"), out
    wait_for(lambda: c.ok("squeue", "-h", "-j", str(jid), "-o", "%T %r").split()
             == ["PENDING", "BeginTime"], 10, what="BeginTime")
    job = c.show_job(jid)
    assert job["Reason"] == "BeginTime"
    job = c.wait_state(jid, "RUNNING", 30)
    # Slurm truncates on a restart unless --open-mode=append
    wait_for(lambda: (c.work / "o.txt").read_text() == "run 1\n", 20,
             what="second run's output alone")
    c.ok("scancel", str(jid))


def test_requeuehold_stays_held_until_released(make_cluster):
    c = make(make_cluster)
    c.write("j.sh", "#!/bin/bash\necho r=${SLURM_RESTART_COUNT:-0} >> runs\nsleep 300\n")
    jid = c.sbatch("-o", "/dev/null", "j.sh")
    c.wait_state(jid, "RUNNING")
    wait_for(lambda: (c.work / "runs").exists(), 20, what="first run")
    c.ok("scontrol", "requeuehold", str(jid))
    wait_for(lambda: c.ok("squeue", "-h", "-j", str(jid), "-o", "%t|%r").strip()
             == "PD|job requeued in held state", 15, what="held")
    job = c.show_job(jid)
    assert job["Reason"] == "job_requeued_in_held_state", job
    assert job["Priority"] == "0"
    # well past cred_expire it still waits
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        assert c.state(jid) == "PENDING"
        time.sleep(0.3)
    c.ok("scontrol", "release", str(jid))
    c.wait_state(jid, "RUNNING", 20)
    wait_for(lambda: (c.work / "runs").read_text() == "r=0\nr=1\n", 20,
             what="second run")
    c.ok("scancel", str(jid))


def test_requeue_bad_input_texts_and_exit_codes(make_cluster):
    c = make(make_cluster, nodes=1)
    rc, out, err = c.run("scontrol", "requeue", "99999")
    assert (rc, out, err) == (1, "", "Invalid job id specified for job 99999\n")
    pend = c.sbatch("-H", "--wrap", "true")
    rc, out, err = c.run("scontrol", "requeue", str(pend))
    assert (rc, err) == (1, f"Job is pending execution for job {pend}\n")
    rc, out, err = c.run("scontrol", "requeuehold", f"{pend},99999")
    assert rc == 1
    assert err == (f"Job is pending execution for job {pend}\n"
                   "Invalid job id specified for job 99999\n")
    rc, out, err = c.run("scontrol", "requeue", "abc")
    assert (rc, err) == (1, "Invalid job id specified for job abc\n")
    nore = c.sbatch("--no-requeue", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(nore, "RUNNING")
    rc, out, err = c.run("scontrol", "requeue", str(nore))
    assert (rc, err) == (1, f"Requested operation is presently disabled for job {nore}\n")
    assert c.show_job(nore)["Requeue"] == "0"
    jobs = json.loads(c.ok("squeue", "--json", "-j", f"{nore},{pend}"))["jobs"]
    assert {j["job_id"]: j["requeue"] for j in jobs} == {nore: False, pend: True}
    assert c.state(nore) == "RUNNING"
    c.ok("scancel", str(nore), str(pend))


def test_finished_job_can_be_requeued(make_cluster):
    c = make(make_cluster, nodes=1)
    c.write("j.sh", "#!/bin/bash\necho r=${SLURM_RESTART_COUNT:-0} >> runs\n")
    jid = c.sbatch("-o", "/dev/null", "j.sh")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    later = c.sbatch("-H", "--wrap", "true")
    # the requeue in a later second than `later`'s submit, for the order below
    # (with a margin: ctld's time() reads the coarse clock, a tick behind)
    second = int(time.time())
    wait_for(lambda: time.time() > second + 1.05, 3, 0.05, what="the next second")
    c.ok("scontrol", "requeue", str(jid))
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "COMPLETED" and job["Restarts"] == "1", job
    assert (c.work / "runs").read_text() == "r=0\nr=1\n"
    # in submit order, as Slurm's database returns them: the requeued job
    # was submitted again after `later`
    rows = c.ok("sacct", "-D", "-X", "-n", "-P", "-j", f"{jid},{later}", "-o", "JobID,State")
    assert rows.split() == [f"{jid}|REQUEUED", f"{later}|PENDING", f"{jid}|COMPLETED"], rows
    rows = c.ok("sacct", "-X", "-n", "-P", "-j", f"{jid},{later}", "-o", "JobID,State")
    assert rows.split() == [f"{later}|PENDING", f"{jid}|COMPLETED"], rows


def test_job_requeue_conf_and_sbatch_env(make_cluster):
    c = make(make_cluster, nodes=1, JobRequeue="0")
    out = c.ok("scontrol", "show", "config")
    assert "JobRequeue              = 0\n" in out
    a = c.sbatch("-H", "--wrap", "true")
    b = c.sbatch("-H", "--requeue", "--wrap", "true")
    env = dict(c.env, SBATCH_REQUEUE="1")
    rc, out, err = c.run("sbatch", "--parsable", "-H", "--wrap", "true", env=env)
    d = int(out.strip())
    # the variable wins over a directive, the command line over both
    c.write("rq.sh", "#!/bin/bash\n#SBATCH --requeue\ntrue\n")
    env = dict(c.env, SBATCH_NO_REQUEUE="yes")
    e = int(c.run("sbatch", "--parsable", "-H", "rq.sh", env=env)[1])
    f = int(c.run("sbatch", "--parsable", "-H", "--requeue", "rq.sh", env=env)[1])
    assert [c.show_job(j)["Requeue"] for j in (a, b, d, e, f)] == ["0", "1", "1", "0", "1"]
    c.ok("scancel", str(a), str(b), str(d), str(e), str(f))


def test_node_failure_requeues_and_job_completes_elsewhere(make_cluster):
    c = make(make_cluster, SlurmdTimeout="3")
    c.write("j.sh", "#!/bin/bash\nif [ -z \"$SLURM_RESTART_COUNT\" ]; then sleep 300; fi\n"
            "echo restart=$SLURM_RESTART_COUNT on $SLURMD_NODENAME\n")
    rq = c.sbatch("--requeue", "-N1", "-o", "rq.out", "j.sh")
    job = c.wait_state(rq, "RUNNING")
    node = job["NodeList"]
    other = "n2" if node == "n1" else "n1"
    c.kill9(node)
    job = c.wait_done(rq, 60)
    assert job["JobState"] == "COMPLETED", job
    assert job["Restarts"] == "1"
    assert job["NodeList"] == other
    assert (c.work / "rq.out").read_text() == f"restart=1 on {other}\n"
    rows = c.ok("sacct", "-D", "-X", "-n", "-P", "-j", str(rq), "-o", "JobID,State,NodeList")
    assert rows.split() == [f"{rq}|NODE_FAIL|{node}", f"{rq}|COMPLETED|{other}"], rows


def test_node_failure_of_a_no_requeue_job_is_node_fail(make_cluster):
    c = make(make_cluster, SlurmdTimeout="3")
    jid = c.sbatch("--no-requeue", "-o", "/dev/null", "--wrap", "sleep 300")
    node = c.wait_state(jid, "RUNNING")["NodeList"]
    c.kill9(node)
    job = c.wait_state(jid, "NODE_FAIL", 30)
    assert job["Restarts"] == "0"


def test_requeue_survives_ctld_restart(make_cluster):
    c = make(make_cluster, nodes=1, cred_expire=3)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(jid, "RUNNING")
    c.ok("scontrol", "requeuehold", str(jid))
    wait_for(lambda: c.ok("squeue", "-h", "-j", str(jid), "-o", "%t").strip() == "PD",
             15, what="held")
    c.kill9("ctld")
    c.up()
    job = c.show_job(jid)
    assert job["JobState"] == "PENDING" and job["Restarts"] == "1", job
    assert job["Reason"] == "job_requeued_in_held_state", job
    rows = c.ok("sacct", "-D", "-X", "-n", "-P", "-j", str(jid), "-o", "JobID,State")
    assert rows.split() == [f"{jid}|REQUEUED", f"{jid}|PENDING"], rows
    c.ok("scontrol", "release", str(jid))
    c.wait_state(jid, "RUNNING", 20)
    c.ok("scancel", str(jid))
