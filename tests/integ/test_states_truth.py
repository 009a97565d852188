"""States tell the truth (issue 12 item 4), as Slurm 22.05 shows them:

- a cancelled or timed-out job whose processes are still ending is
  COMPLETING: `CG` in squeue's default listing and with `-t CG`,
  `JobState=COMPLETING` in scontrol, until its node reports the end; then
  CANCELLED / TIMEOUT (and gone from squeue's default listing)."""
import re

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
