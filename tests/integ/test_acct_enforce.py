"""AccountingStorageEnforce at submit, as slurmctld decides it: a job whose
user has no association to its account (or default account), an unknown
QOS or one the association may not use, a submit limit reached, or with
DenyOnLimit a per-job limit broken, is refused with Slurm's message and
nothing is queued; an accepted job gets its account and QOS filled in."""

import os
import pwd

import pytest

ME = pwd.getpwuid(os.getuid()).pw_name
ENFORCE = {"AccountingStorageEnforce": "associations,limits,qos,safe"}
POLICY = ("sbatch: error: Batch job submission failed: Job violates accounting/QOS "
          "policy (job submit limit, user's size and/or time limits)\n")


def refused(message, reason=None):
    return (1, "", (f"sbatch: error: {reason}\n" if reason else "") +
            (POLICY if reason else
             f"sbatch: error: Batch job submission failed: {message}\n"))


@pytest.fixture
def enforced(make_cluster):
    c = make_cluster(nodes=1, sets=ENFORCE)
    c.ok("sacctmgr", "-i", "add", "account", "physics")
    c.ok("sacctmgr", "-i", "add", "user", ME, "account=physics")
    if ME == "root":  # root's own association to root always exists
        c.ok("sacctmgr", "-i", "modify", "user", "root", "set", "DefaultAccount=physics")
    return c


def squeue_aq(c, jid):
    return c.ok("squeue", "-h", "-j", str(jid), "-o", "%a|%q")


def test_association_required(make_cluster):
    c = make_cluster(nodes=1, sets=ENFORCE)
    if ME == "root":  # leave root without an association
        c.ok("sacctmgr", "-i", "delete", "user", "root", "account=root")
    assert c.run("sbatch", "-H", "--wrap", "true") == refused(
        "Invalid account or account/partition combination specified")
    assert c.run("sbatch", "-H", "-A", "nope", "--wrap", "true") == refused(
        "Invalid account or account/partition combination specified")
    assert c.job_ids() == []
    c.ok("sacctmgr", "-i", "add", "account", "physics")
    assert c.run("sbatch", "-H", "-A", "physics", "--wrap", "true") == refused(
        "Invalid account or account/partition combination specified")
    c.ok("sacctmgr", "-i", "add", "user", ME, "account=physics")
    jid = c.sbatch("-H", "--wrap", "true")  # its default account
    assert squeue_aq(c, jid) == "physics|normal\n"


def test_partition_association(enforced):
    """An association of a partition holds only there."""
    c = enforced
    c.ok("sacctmgr", "-i", "add", "account", "chem")
    c.ok("sacctmgr", "-i", "add", "user", ME, "account=chem", "partition=other")
    assert c.run("sbatch", "-H", "-A", "chem", "--wrap", "true") == refused(
        "Invalid account or account/partition combination specified")


def test_qos(enforced):
    c = enforced
    assert c.run("sbatch", "-H", "--qos=nope", "--wrap", "true") == refused(
        "Invalid qos specification")
    c.ok("sacctmgr", "-i", "add", "qos", "high")
    assert c.run("sbatch", "-H", "--qos=high", "--wrap", "true") == refused(
        "Invalid qos specification")
    assert c.job_ids() == []
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set", "QOS+=high")
    jid = c.sbatch("-H", "--qos=high", "--wrap", "true")
    assert squeue_aq(c, jid) == "physics|high\n"
    c.ok("sacctmgr", "-i", "modify", "user", "where", f"name={ME}", "account=physics",
         "set", "DefaultQOS=high")
    jid = c.sbatch("-H", "--wrap", "true")
    assert squeue_aq(c, jid) == "physics|high\n"


def test_submit_limits(enforced):
    c = enforced
    c.ok("sacctmgr", "-i", "modify", "user", ME, "set", "MaxSubmitJobs=2")
    first = c.sbatch("-H", "--wrap", "true")
    c.sbatch("-H", "--wrap", "true")
    assert c.run("sbatch", "-H", "--wrap", "true") == refused(None,
                                                               "AssocMaxSubmitJobLimit")
    c.ok("scancel", str(first))
    # an array counts its tasks
    assert c.run("sbatch", "-H", "--array=1-2", "--wrap", "true") == refused(
        None, "AssocMaxSubmitJobLimit")
    c.sbatch("-H", "--wrap", "true")
    c.ok("scancel", "-u", ME)
    c.ok("sacctmgr", "-i", "modify", "user", ME, "set", "MaxSubmitJobs=-1")
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set", "GrpSubmitJobs=1")
    c.sbatch("-H", "--wrap", "true")
    assert c.run("sbatch", "-H", "--wrap", "true") == refused(None,
                                                               "AssocGrpSubmitJobsLimit")
    c.ok("scancel", "-u", ME)
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set", "GrpSubmitJobs=-1")
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxSubmitJobsPerUser=1")
    c.sbatch("-H", "--wrap", "true")
    assert c.run("sbatch", "-H", "--wrap", "true") == refused(
        None, "QOSMaxSubmitJobPerUserLimit")
    c.ok("scancel", "-u", ME)
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxSubmitJobsPerUser=-1",
         "GrpSubmitJobs=1")
    c.sbatch("-H", "--wrap", "true")
    assert c.run("sbatch", "-H", "--wrap", "true") == refused(None, "QOSGrpSubmitJobsLimit")
    assert len(c.job_ids()) == 1


def test_deny_on_limit(enforced):
    c = enforced
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxWall=10",
         "MaxTRESPerJob=cpu=1")
    # without DenyOnLimit a job over a limit is queued (to wait)
    c.sbatch("-H", "-t", "20", "--wrap", "true")
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "Flags=DenyOnLimit")
    assert c.run("sbatch", "-H", "-t", "20", "--wrap", "true") == refused(
        None, "QOSMaxWallDurationPerJobLimit")
    assert c.run("sbatch", "-H", "-c", "2", "--wrap", "true") == refused(
        None, "QOSMaxCpuPerJobLimit")
    # no -t: the MaxWall becomes the job's limit
    jid = c.sbatch("-H", "--wrap", "true")
    assert c.show_job(jid)["TimeLimit"] == "00:10:00"
    # the association's own per-job limits, with the QOS's DenyOnLimit
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxWall=-1",
         "MaxTRESPerJob=cpu=-1")
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set", "MaxWall=5")
    assert c.run("sbatch", "-H", "-t", "20", "--wrap", "true") == refused(
        None, "AssocMaxWallDurationPerJobLimit")
    assert len(c.job_ids()) == 2


def test_not_enforced(cluster):
    """Without AccountingStorageEnforce any account goes; the user's default
    one is still filled in."""
    c = cluster
    jid = c.sbatch("-H", "-A", "nope", "--qos=alsonope", "--wrap", "true")
    assert squeue_aq(c, jid) == "nope|alsonope\n"
    c.ok("sacctmgr", "-i", "add", "account", "physics")
    c.ok("sacctmgr", "-i", "add", "user", ME, "account=physics")
    if ME == "root":
        c.ok("sacctmgr", "-i", "modify", "user", "root", "set", "DefaultAccount=physics")
    jid = c.sbatch("-H", "--wrap", "true")
    assert squeue_aq(c, jid) == "physics|normal\n"


def test_config_shows_enforcement(make_cluster):
    c = make_cluster(nodes=1, sets={"AccountingStorageEnforce": "qos,nojobs"})
    out = c.ok("scontrol", "show", "config")
    assert "AccountingStorageEnforce = associations,qos\n" in out


def test_bad_enforce_value(make_cluster):
    c = make_cluster(nodes=1, start=False, sets={"AccountingStorageEnforce": "bogus"})
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1", "--set",
                            "AccountingStorageEnforce=bogus")
    assert rc != 0
    assert "Invalid parameter for AccountingStorageEnforce: bogus" in out + err


def test_delete_refused_while_jobs_use_it(cluster):
    """An association a job not yet ended runs under stays (slurmdbd's
    "Job(s) active"); once the jobs are over it may go."""
    c = cluster
    c.ok("sacctmgr", "-i", "add", "account", "physics")
    c.ok("sacctmgr", "-i", "add", "user", ME, "account=physics")
    a = c.sbatch("-H", "-A", "physics", "--wrap", "true")
    b = c.sbatch("-H", "-A", "physics", "--wrap", "true")

    def line(j):
        return f"  JobID = {j:<10} C = drover     A = physics    U = {ME:<9}\n"

    busy = (1, "", " Error with request: Job(s) active, cancel job(s) before remove\n" +
            line(b) + line(a))
    assert c.run("sacctmgr", "-i", "delete", "account", "physics") == busy
    assert c.run("sacctmgr", "-i", "delete", "user", ME, "account=physics") == busy
    c.ok("scancel", str(a), str(b))
    c.wait_state(a, "CANCELLED")
    c.wait_state(b, "CANCELLED")
    assert c.run("sacctmgr", "-i", "delete", "account", "physics") == (
        0, " Deleting accounts...\n  physics\n", "")
