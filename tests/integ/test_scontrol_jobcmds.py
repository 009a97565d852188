"""scontrol's job commands (issue 12 item 2): wait_job, notify, listpids and
write batch_script, with the messages, streams and exit codes Slurm 22.05
gives (checked on a Slurm 22.05 cluster: wait_job's lines are scontrol's
info() on stderr; notify reaches the batch job's stderr as slurmstepd's
error line; write batch_script exits 0 even after its errors)."""

import os
import re

from conftest import as_nobody_prefix, wait_for

SLEEPER = "#!/bin/bash\necho ready > ready.$SLURM_JOB_ID\nsleep 300\n"


def running(c, *args):
    c.write("sleeper.sh", SLEEPER)
    jid = c.sbatch("-o", "j%j.out", "-e", "j%j.err", *args, "sleeper.sh")
    wait_for(lambda: (c.work / f"ready.{jid}").exists(), 20, what="the job to start")
    return jid


def test_wait_job(cluster):
    jid = running(cluster)
    assert cluster.run("scontrol", "wait_job", str(jid)) == (
        0, "", f"scontrol: Nodes are ready for job {jid}\n")
    held = cluster.sbatch("-H", "--wrap", "true")
    assert cluster.run("scontrol", "wait_job", str(held)) == (
        1, "", f"scontrol: Job {held} no longer running\n")
    assert cluster.run("scontrol", "wait_job", "999999") == (
        1, "", "scontrol: Problem running job 999999\n")
    assert cluster.run("scontrol", "wait_job", "x") == (1, "", "Invalid job_id x")
    assert cluster.run("scontrol", "wait_job") == (
        1, "", "too few arguments for keyword:wait_job\n")
    assert cluster.run("scontrol", "wait_job", "1", "2") == (
        1, "", "too many arguments for keyword:wait_job\n")
    cluster.ok("scancel", str(jid), str(held))
    cluster.wait_state(jid, "CANCELLED")
    assert cluster.run("scontrol", "wait_job", str(jid)) == (
        1, "", f"scontrol: Job {jid} no longer running\n")


def test_notify_reaches_the_jobs_stderr(cluster):
    jid = running(cluster)
    assert cluster.run("scontrol", "notify", str(jid), "hello", "world") == (0, "", "")
    err = cluster.work / f"j{jid}.err"
    wait_for(lambda: err.read_text() == "slurmstepd: error: hello world\n", 10,
             what="the notify line in the job's stderr")
    assert (cluster.work / f"j{jid}.out").read_text() == ""
    # without -e the line goes where stderr goes: the output file
    both = cluster.sbatch("-o", "b%j.out", "--wrap",
                          "echo ready > ready.$SLURM_JOB_ID; sleep 300")
    wait_for(lambda: (cluster.work / f"ready.{both}").exists(), 20, what="start")
    cluster.ok("scontrol", "notify", str(both), "to stdout")
    out = cluster.work / f"b{both}.out"
    wait_for(lambda: out.read_text() == "slurmstepd: error: to stdout\n", 10,
             what="the notify line in the job's output")
    cluster.ok("scancel", str(jid), str(both))


def test_notify_bad_input_changes_nothing(cluster):
    held = cluster.sbatch("-H", "--wrap", "true")
    done = cluster.sbatch("-o", "/dev/null", "--wrap", "true")
    cluster.wait_state(done, "COMPLETED")
    cases = [
        (["999999", "hi"], "job notify failure: Invalid job id specified\n"),
        ([str(done), "hi"],
         "job notify failure: Job/step already completing or completed\n"),
        ([str(held), "hi"],
         "job notify failure: Requested operation is presently disabled\n"),
        (["x", "hi"], "Invalid job_id xjob notify failure: No error\n"),
        ([str(done)], "too few arguments for keyword:notify\n"),
        ([], "too few arguments for keyword:notify\n"),
    ]
    for args, err in cases:
        assert cluster.run("scontrol", "notify", *args) == (1, "", err), args
    assert cluster.state(done) == "COMPLETED"
    assert cluster.state(held) == "PENDING"
    cluster.ok("scancel", str(held))


def test_write_batch_script(cluster):
    script = "#!/bin/bash\n#SBATCH -J named\necho ready > ready.$SLURM_JOB_ID\nsleep 300\n"
    cluster.write("mine.sh", script)
    jid = cluster.sbatch("-o", "/dev/null", "mine.sh")
    assert cluster.run("scontrol", "write", "batch_script", str(jid)) == (
        0, f"batch script for job {jid} written to slurm-{jid}.sh\n", "")
    assert (cluster.work / f"slurm-{jid}.sh").read_text() == script
    assert cluster.run("scontrol", "write", "batch", str(jid), "-") == (0, script, "")
    assert cluster.run("scontrol", "write", "batch_script", str(jid), "x.sh") == (
        0, f"batch script for job {jid} written to x.sh\n", "")
    assert (cluster.work / "x.sh").read_text() == script
    assert cluster.run("scontrol", "-Q", "write", "batch_script", str(jid), "q.sh") == (
        0, "", "")
    # Slurm's errors, with its exit status 0; nothing is written or removed
    (cluster.work / "slurm-999999.sh").write_text("keep\n")
    assert cluster.run("scontrol", "write", "batch_script", "999999") == (
        0, "", "job script retrieval failed: Invalid job id specified\n")
    assert (cluster.work / "slurm-999999.sh").read_text() == "keep\n"
    assert cluster.run("scontrol", "write", "batch_script", str(jid),
                       "/nonexistent/x.sh") == (
        0, "", "failed to open file `/nonexistent/x.sh`: No such file or directory\n")
    assert cluster.run("scontrol", "write", "batch_script") == (0, "", "")
    assert cluster.run("scontrol", "write") == (
        1, "", "too few arguments for keyword:write\n")
    assert cluster.run("scontrol", "write", "foo", "1") == (
        1, "", "invalid write argument:foo\n")
    cluster.ok("scancel", str(jid))


HEADER = "PID      JOBID    STEPID   LOCALID GLOBALID\n"


def pgid_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[2])


def test_listpids(cluster):
    jid = running(cluster)
    rc, out, err = cluster.run("scontrol", "listpids", str(jid))
    assert (rc, err) == (0, "")
    lines = out.splitlines(keepends=True)
    assert lines[0] == HEADER
    rows = [re.fullmatch(r"(\d+) +(\d+) +(\S+) +(\S+) +(\S+) *\n", ln) for ln in lines[1:]]
    assert all(rows) and len(rows) >= 2, out
    # the script (task 0) first, then the rest of its process group
    script = rows[0]
    assert script.group(2, 3, 4, 5) == (str(jid), "batch", "0", "0")
    assert lines[1] == f"{script.group(1):<8} {jid:<8} {'batch':<8} {'0':<7} {'0':<8}\n"
    for r in rows[1:]:
        assert r.group(2, 3, 4, 5) == (str(jid), "batch", "-", "-")
        assert pgid_of(int(r.group(1))) == int(script.group(1))
    # every job, and the job on its own node; elsewhere it does not exist
    rc, out_all, _ = cluster.run("scontrol", "listpids")
    assert rc == 0 and out_all == out
    node = cluster.show_job(jid)["BatchHost"]
    other = "n2" if node == "n1" else "n1"
    assert cluster.run("scontrol", "listpids", str(jid), node) == (0, out, "")
    assert cluster.run("scontrol", "listpids", str(jid), other) == (
        1, HEADER, f"JobId={jid} does not exist on node {other}.\n")
    assert cluster.run("scontrol", "listpids", f"{jid}.3") == (
        1, HEADER, f"StepId={jid}.3 does not exist on node (null).\n")
    assert cluster.run("scontrol", "listpids", "999999") == (
        1, HEADER, "There are no steps for job 999999 on node (null).\n")
    assert cluster.run("scontrol", "listpids", "x") == (
        1, "", '"x" does not look like a jobid\n')
    assert cluster.run("scontrol", "listpids", f"{jid}.batch") == (
        0, HEADER, f'"{jid}.batch" does not look like a stepid\n')
    assert cluster.run("scontrol", "listpids", "1", "n1", "x") == (
        1, "", "too many arguments for keyword:listpids\n")
    cluster.ok("scancel", str(jid))
    cluster.wait_state(jid, "CANCELLED")
    wait_for(lambda: cluster.run("scontrol", "listpids")[2]
             == "No job steps exist on this node.\n", 10, what="no steps left")
    assert cluster.run("scontrol", "listpids") == (
        1, HEADER, "No job steps exist on this node.\n")


def test_listpids_of_a_step(cluster):
    c = cluster
    c.write("step.sh", "#!/bin/bash\nsrun -n2 bash -c 'echo up > up.$SLURM_PROCID; sleep 300'\n")
    jid = c.sbatch("-n2", "-N1", "-o", "/dev/null", "step.sh")
    wait_for(lambda: all((c.work / f"up.{i}").exists() for i in (0, 1)), 30,
             what="the step's tasks")
    wait_for(lambda: c.run("scontrol", "listpids", f"{jid}.0")[0] == 0, 10,
             what="the step's pids")
    rc, out, err = c.run("scontrol", "listpids", f"{jid}.0")
    assert (rc, err) == (0, "")
    rows = [ln.split() for ln in out.splitlines()[1:]]
    tasks = [r for r in rows if r[3] != "-"]
    assert sorted((r[1], r[2], r[3], r[4]) for r in tasks) == [
        (str(jid), "0", "0", "0"), (str(jid), "0", "1", "1")]
    for r in tasks:
        assert os.path.exists(f"/proc/{r[0]}")
    # the whole job: its batch step, then step 0
    rc, out, _ = c.run("scontrol", "listpids", str(jid))
    steps = [ln.split()[2] for ln in out.splitlines()[1:]]
    assert rc == 0 and steps[0] == "batch" and "0" in steps
    c.ok("scancel", str(jid))


def test_another_users_job(cluster):
    """Only the job's owner (or an admin) may notify it or read its script:
    Slurm's ESLURM_USER_ID_MISSING, "Invalid user id"."""
    c = cluster
    jid = running(c)
    nobody = as_nobody_prefix() + [c.bin / "scontrol"]
    assert c.run(*nobody, "notify", str(jid), "hi") == (
        1, "", "job notify failure: Invalid user id\n")
    assert c.run(*nobody, "write", "batch_script", str(jid), "-") == (
        0, "", "job script retrieval failed: Invalid user id\n")
    assert (c.work / f"j{jid}.err").read_text() == ""
    c.ok("scancel", str(jid))


def test_after_daemons_restart(cluster):
    """The script comes from the store, so a killed and restarted ctld still
    gives it; the stderr path lives in the job's spool dir beside its
    shepherd, so a killed and restarted noded still delivers notify, and
    listpids still finds the job."""
    c = cluster
    jid = running(c)
    node = c.show_job(jid)["BatchHost"]
    script = c.run("scontrol", "write", "batch_script", str(jid), "-")[1]
    assert script == SLEEPER
    c.kill9("ctld")
    c.up()
    wait_for(lambda: c.run("scontrol", "write", "batch_script", str(jid), "-") == (
        0, SLEEPER, ""), 20, what="the script from the restarted ctld")
    c.kill9(node)
    c.up()
    rc, out, _ = c.run("scontrol", "listpids", str(jid), node)
    assert rc == 0 and out.splitlines()[1].split()[1:3] == [str(jid), "batch"]
    # ctld hands the line on once the node's link is back
    wait_for(lambda: c.run("scontrol", "notify", str(jid), "after restart")[0] == 0, 30,
             what="notify to be accepted")
    err = c.work / f"j{jid}.err"
    wait_for(lambda: err.read_text() == "slurmstepd: error: after restart\n", 10,
             what="the line in the job's stderr")
    assert c.state(jid) == "RUNNING"
    c.ok("scancel", str(jid))
