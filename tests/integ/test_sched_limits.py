"""Limits that keep a job pending, on a real cluster: a QOS's MaxJobsPerUser
holds the second job with QOSMaxJobsPerUserLimit until the first ends; an
account's GrpTRES=gres/gpu holds its GPU jobs with AssocGrpGRES while
another account's run; without AccountingStorageEnforce=limits nothing is
held."""

import os
import pwd

from conftest import wait_for

ME = pwd.getpwuid(os.getuid()).pw_name
SETS = {"AccountingStorageEnforce": "associations,limits,qos",
        "SchedulerParameters": "bf_interval=1,bf_resolution=1",
        "DefMemPerCPU": "100"}


def policy_cluster(make_cluster, sets=SETS, gpus=0):
    c = make_cluster(nodes=1, sets=sets, start=False)
    extra = ("--cpus", "4") + (("--gpus", str(gpus)) if gpus else ())
    c.up(extra=extra)
    wait_for(lambda: "IDLE" in c.show_node("n1")["State"], 20, what="n1 up")
    for acct in ("physics", "chem"):
        c.ok("sacctmgr", "-i", "add", "account", acct)
        c.ok("sacctmgr", "-i", "add", "user", ME, f"account={acct}")
    c.ok("sacctmgr", "-i", "modify", "user", ME, "set", "DefaultAccount=physics")
    return c


def reason(c, jid):
    return c.show_job(jid).get("Reason")


def test_qos_max_jobs_per_user_holds_the_next_job(make_cluster):
    c = policy_cluster(make_cluster)
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxJobsPerUser=1")
    a = c.sbatch("-c", "1", "--wrap", "sleep 100")
    c.wait_state(a, "RUNNING")
    b = c.sbatch("-c", "1", "--wrap", "true")
    wait_for(lambda: reason(c, b) == "QOSMaxJobsPerUserLimit", 20,
             what="job b held by the QOS limit")
    assert c.state(b) == "PENDING"  # although 3 CPUs are free
    c.ok("scancel", str(a))
    assert c.wait_done(b)["JobState"] == "COMPLETED"


def test_account_grp_gres_holds_gpu_jobs(make_cluster):
    c = policy_cluster(make_cluster, gpus=4)
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set",
         "GrpTRES=gres/gpu=2")
    a = c.sbatch("-A", "physics", "--gres=gpu:2", "--wrap", "sleep 100")
    c.wait_state(a, "RUNNING")
    b = c.sbatch("-A", "physics", "--gres=gpu:1", "--wrap", "true")
    wait_for(lambda: reason(c, b) == "AssocGrpGRES", 20,
             what="physics's second GPU job held by its account's GrpTRES")
    d = c.sbatch("-A", "chem", "--gres=gpu:2", "--wrap", "true")  # not limited
    assert c.wait_done(d)["JobState"] == "COMPLETED"
    assert c.state(b) == "PENDING"
    c.ok("scancel", str(a))
    assert c.wait_done(b)["JobState"] == "COMPLETED"


def test_limits_not_enforced_hold_nothing(make_cluster):
    sets = dict(SETS, AccountingStorageEnforce="associations")
    c = policy_cluster(make_cluster, sets=sets)
    c.ok("sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxJobsPerUser=1")
    a = c.sbatch("-c", "1", "--wrap", "sleep 100")
    b = c.sbatch("-c", "1", "--wrap", "sleep 100")
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")
    c.ok("scancel", str(a), str(b))
