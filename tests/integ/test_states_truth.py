"""States tell the truth (issue 12 item 4), as Slurm 22.05 shows them:

- a cancelled or timed-out job whose processes are still ending is
  COMPLETING: `CG` in squeue's default listing and with `-t CG`,
  `JobState=COMPLETING` in scontrol, until its node reports the end; then
  CANCELLED / TIMEOUT (and gone from squeue's default listing)."""
import re
import subprocess

from conftest import wait_for

# KillWait long enough that the job's own slow exit (3 s) is what ends it
SETS = {"KillWait": "20"}

TRAP = ("#!/bin/bash\n"
        "trap 'echo got TERM; sleep 3; echo bye; exit 0' TERM\n"
        "echo started\n"
        "sleep 300 & wait\n")


def squeue_states(c, *args):
    out = c.ok("squeue", "-h", "-o", "%i %t", *args)
    return dict(line.split() for line in out.splitlines())


def started(c, name):
    p = c.work / name
    return p.exists() and p.read_text().startswith("started\n")


def check_completing(c, jid, final):
    """While the job's trap runs: CG everywhere; then its final state."""
    wait_for(lambda: "got TERM" in (c.work / "job.out").read_text(), 20,
             what="the job's trap running")
    assert squeue_states(c).get(str(jid)) == "CG"
    assert squeue_states(c, "-t", "CG") == {str(jid): "CG"}
    assert squeue_states(c, "-t", "R") == {}
    out = c.ok("squeue", "-h", "-j", str(jid), "-o", "%T")
    assert out == "COMPLETING\n"
    assert c.state(jid) == "COMPLETING"
    # sacct shows the final state at once, as Slurm's does
    acct = c.ok("sacct", "-X", "-n", "-P", "-j", str(jid), "-o", "State")
    assert acct.startswith(final), acct
    # default squeue's own line
    line = [ln for ln in c.ok("squeue").splitlines() if ln.split()[0] == str(jid)]
    assert re.match(rf"\s+{jid}\s+debug\s+job.sh\s+\S+\s+CG\s", line[0]), line
    wait_for(lambda: c.state(jid) == final, 20, what=f"job {jid} {final}")
    assert "bye\n" in (c.work / "job.out").read_text()
    assert str(jid) not in squeue_states(c)
    assert squeue_states(c, "-t", "CG") == {}


def test_cancelled_job_is_completing_until_its_processes_end(make_cluster):
    c = make_cluster(nodes=1, sets=SETS)
    c.write("job.sh", TRAP)
    jid = c.sbatch("-o", "job.out", "job.sh")
    wait_for(lambda: started(c, "job.out"), 30, what="the job running")
    c.ok("scancel", str(jid))
    check_completing(c, jid, "CANCELLED")


def test_timed_out_job_is_completing_until_its_processes_end(make_cluster):
    c = make_cluster(nodes=1, sets=SETS)
    c.write("job.sh", TRAP)
    jid = c.sbatch("-t", "0:2", "-o", "job.out", "job.sh")
    wait_for(lambda: started(c, "job.out"), 30, what="the job running")
    check_completing(c, jid, "TIMEOUT")
    assert c.show_job(jid).get("Reason") == "TimeLimit"


def test_cancelled_pending_array_tasks_keep_their_records(make_cluster):
    """`scancel ID_IDX` and `scancel ID_[A-B]` of pending tasks still in the
    array's record move them to a record of their own, CANCELLED, which
    sacct keeps and scontrol shows until MinJobAge (Slurm 22.05 drops them:
    docs/compat.md)."""
    c = make_cluster(nodes=1)
    c.write("tl.sh", "#!/bin/bash\nsleep 300\n")
    jid = c.sbatch("-H", "--array=0-5", "-o", "/dev/null", "tl.sh")
    c.ok("scancel", f"{jid}_2")
    c.ok("scancel", f"{jid}_[3-4]")
    out = c.ok("sacct", "-X", "-n", "-P", "-j", str(jid), "-o", "JobID,State")
    assert sorted(out.splitlines()) == sorted([
        f"{jid}_[0-1,5]|PENDING", f"{jid}_2|CANCELLED by 0",
        f"{jid}_[3-4]|CANCELLED by 0"]), out
    assert c.ok("sacct", "-n", "-P", "-j", f"{jid}_2", "-o", "JobID,State") == \
        f"{jid}_2|CANCELLED by 0\n"
    assert c.ok("squeue", "-h", "-o", "%i %t") == f"{jid}_[0-1,5] PD\n"
    job = c.show_job(f"{jid}_2")
    assert job["JobState"] == "CANCELLED" and job["ArrayTaskId"] == "2", job
    assert job["ArrayJobId"] == str(jid), job
    assert c.show_job(f"{jid}_4")["JobState"] == "CANCELLED"
    # the rest of the array is untouched and can still be cancelled whole
    c.ok("scancel", str(jid))
    out = c.ok("sacct", "-X", "-n", "-P", "-j", str(jid), "-o", "JobID,State")
    assert "PENDING" not in out, out


def test_requeued_job_shows_no_step_rows_while_pending(make_cluster):
    """Slurm 22.05: after `scontrol requeue` sacct shows `J PENDING` only;
    -D keeps the earlier run (REQUEUED) with its steps."""
    c = make_cluster(nodes=1)
    c.write("st.sh", "#!/bin/bash\nsrun sleep 300\n")
    jid = c.sbatch("--requeue", "-o", "/dev/null", "st.sh")
    wait_for(lambda: f"{jid}.0" in c.ok("squeue", "-s", "-h", "-o", "%i"), 30,
             what="its step running")
    c.ok("scontrol", "requeue", str(jid))
    c.wait_state(jid, "PENDING", 20)
    rows = c.ok("sacct", "-n", "-P", "-j", str(jid), "-o", "JobID,State")
    assert rows == f"{jid}|PENDING\n"
    rows = c.ok("sacct", "-D", "-n", "-P", "-j", str(jid), "-o", "JobID,State")
    ids = [r.split("|") for r in rows.splitlines()]
    assert ids[0] == [str(jid), "REQUEUED"] and ids[-1] == [str(jid), "PENDING"], rows
    assert {f"{jid}.batch", f"{jid}.0"} <= {r[0] for r in ids}, rows
    c.ok("scancel", str(jid))


def test_drover_down_and_up_requeues_a_requeue_job_as_node_fail(make_cluster):
    """`drover down` kills the running job with its shepherd; at `drover up`
    its node reports the shepherd lost: the run ends NODE_FAIL and the job,
    --requeue, goes back to the queue and runs again (never FAILED 0:9)."""
    c = make_cluster(nodes=1, start=False)
    c.sets["AuthInfo"] = (f"socket={c.dir}/run/authd.sock,key={c.dir}/drover.key,"
                          "cred_expire=1")
    c.up()
    c.write("j.sh", "#!/bin/bash\nif [ -z \"$SLURM_RESTART_COUNT\" ]; then sleep 300; fi\n"
            "echo restart=$SLURM_RESTART_COUNT\n")
    rq = c.sbatch("--requeue", "-o", "rq.out", "j.sh")
    nq = c.sbatch("--no-requeue", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_state(rq, "RUNNING")
    c.wait_state(nq, "RUNNING")
    rc, out, err = c.down()
    assert rc == 0, err
    c.up()
    job = c.wait_done(rq, 60)
    assert job["JobState"] == "COMPLETED", job
    assert job["Restarts"] == "1"
    assert (c.work / "rq.out").read_text() == "restart=1\n"
    rows = c.ok("sacct", "-D", "-X", "-n", "-P", "-j", str(rq), "-o", "JobID,State")
    assert rows.split() == [f"{rq}|NODE_FAIL", f"{rq}|COMPLETED"], rows
    job = c.wait_state(nq, "NODE_FAIL", 30)
    assert job["Restarts"] == "0"


def test_cancelled_srun_allocation_is_completing_until_its_step_ends(make_cluster):
    """Slurm 22.05: `scancel` of the job srun made shows CG until its step's
    tasks are gone, then CA; srun says as for a cancelled step."""
    c = make_cluster(nodes=1, sets=SETS)
    p = subprocess.Popen(
        ["srun", "sh", "-c", "trap 'sleep 3; echo bye; exit 0' TERM; echo up; "
         "while :; do sleep 0.1; done"],
        env=c.env, cwd=c.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        assert p.stdout.readline() == "up\n"
        jid = c.ok("squeue", "-h", "-o", "%i").split()[0]
        c.ok("scancel", jid)
        assert squeue_states(c).get(jid) == "CG"
        assert squeue_states(c, "-t", "CG") == {jid: "CG"}
        assert c.state(jid) == "COMPLETING"
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert out == "bye\n"
    assert err.startswith("srun: Job step aborted: Waiting up to 22 seconds for job "
                          "step to finish.\nslurmstepd: error: *** STEP "), err
    wait_for(lambda: c.state(jid) == "CANCELLED", 20, what="CANCELLED")
    assert squeue_states(c) == {}


def test_requeued_job_is_completing_while_its_run_ends(make_cluster):
    """Slurm 22.05: after `scontrol requeue` the job is CG (JobState=
    COMPLETING) until its run's processes are gone, then PD (BeginTime)."""
    c = make_cluster(nodes=1, sets=SETS)
    c.write("job.sh", TRAP)
    jid = c.sbatch("--requeue", "-o", "job.out", "job.sh")
    wait_for(lambda: started(c, "job.out"), 30, what="the job running")
    c.ok("scontrol", "requeue", str(jid))
    wait_for(lambda: "got TERM" in (c.work / "job.out").read_text(), 20,
             what="the job's trap running")
    assert squeue_states(c).get(str(jid)) == "CG"
    assert squeue_states(c, "-t", "CG") == {str(jid): "CG"}
    assert squeue_states(c, "-t", "PD") == {}
    job = c.show_job(jid)
    assert (job["JobState"], job["Reason"], job["NodeList"]) == ("COMPLETING", "None", "n1")
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%t %R") == "CG n1\n"
    wait_for(lambda: c.state(jid) == "PENDING", 20, what="PENDING")
    assert squeue_states(c) == {str(jid): "PD"}
    assert c.show_job(jid)["Reason"] == "BeginTime"
    c.ok("scancel", str(jid))
