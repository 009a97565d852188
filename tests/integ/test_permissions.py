"""Who may do what (issue 13, item 2), on a cluster root brought up.

Slurm's rules, decided in one place in ctld (src/ctld/perm.c): a job's
owner, an operator (AdminLevel=Operator, and every administrator) and a
coordinator of the job's account (or of an account above it) may cancel,
hold, release, update and requeue it; anyone else is refused with Slurm's
error for that request and the job stays as it was. Users may lower their
job's time limit, not raise it past its partition's MaxTime. Partitions and
nodes are for administrators (Slurm's validate_super_user), sacctmgr's
changes for operators and, within their accounts, coordinators.
PrivateData=jobs hides others' jobs from squeue, scontrol, sacct and a raw
job.query alike: ctld filters, the client is not trusted to. Needs root
(the shared test users)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import wait_for

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


def home(c, u):
    d = c.dir / "home" / u.name
    if not d.exists():
        d.mkdir(parents=True)
        os.chown(d, u.uid, u.gid)
    return d


def as_user(c, u, *cmd):
    return c.run(*u.prefix, *[str(x) for x in cmd], cwd=home(c, u))


def submit(c, u, *args):
    rc, out, err = as_user(c, u, "sbatch", "--parsable", *args)
    assert rc == 0, err
    return int(out.strip().split(";")[0])


def raw(c, u, env):
    """One request on the wire as user u (authd signs for whoever calls it)."""
    code = ("import json, pathlib, sys\n"
            "from test_ctld_auth import send, signed\n"
            "class C: pass\n"
            "c = C(); c.dir = pathlib.Path(sys.argv[1]); c.conf = c.dir / 'drover.conf'\n"
            "print(json.dumps(send(c, signed(c, json.loads(sys.stdin.read())))))\n")
    p = subprocess.run([*u.prefix, sys.executable, "-c", code, str(c.dir)],
                       input=json.dumps(env), capture_output=True, text=True, timeout=30,
                       env=dict(c.env, PYTHONPATH=os.path.dirname(__file__)),
                       cwd=home(c, u))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def snapshot(c, jid):
    j = c.show_job(jid)
    return {k: j[k] for k in ("JobState", "Reason", "TimeLimit", "Priority")}


LATER = "--begin=now+3600"  # pending for the whole test, and not held


def test_a_user_cannot_act_on_anothers_job(make_cluster, test_users):
    c = make_cluster(nodes=1)
    a, b = test_users[0], test_users[1]
    jid = submit(c, b, LATER, "-t", "10", "--wrap", "true")
    before = snapshot(c, jid)
    j = str(jid)
    assert as_user(c, a, "scancel", j) == (
        1, "", f"scancel: error: Kill job error on job id {j}: "
        "Access/permission denied\n")
    assert as_user(c, a, "scancel", "-s", "USR1", j)[0] == 1
    assert as_user(c, a, "scontrol", "hold", j) == (
        1, "", f"Invalid user id for job {j}\nslurm_suspend error: Invalid user id\n")
    assert as_user(c, a, "scontrol", "update", f"JobId={j}", "TimeLimit=5") == (
        1, "", f"Invalid user id for job {j}\n")
    rc, out, err = as_user(c, a, "scontrol", "requeue", j)
    assert (rc, out) == (1, "") and "Access/permission denied" in err, err
    assert as_user(c, a, "scontrol", "notify", j, "hi") == (
        1, "", "job notify failure: Invalid user id\n")
    assert as_user(c, a, "scontrol", "top", j)[0] == 1
    # the same through the wire, without any client in the way
    reply = raw(c, a, {"v": 1, "type": "job.cancel", "id": 3,
                       "body": {"job_ids": [jid]}})
    assert [r["rc"] for r in reply["body"]["results"]] == [2002]
    reply = raw(c, a, {"v": 1, "type": "job.update", "id": 4,
                       "body": {"job_ids": [jid], "time_limit": 1}})
    assert [r["rc"] for r in reply["body"]["results"]] == [2010]
    assert snapshot(c, jid) == before
    # an administrator's hold is not the owner's to lift
    c.ok("scontrol", "hold", j)
    for cmd in ("release", "uhold"):
        assert as_user(c, b, "scontrol", cmd, j) == (
            1, "", f"Access/permission denied for job {j}\n"
            "slurm_suspend error: Access/permission denied\n"), cmd
    assert c.show_job(jid)["Reason"] == "JobHeldAdmin"
    c.ok("scontrol", "release", j)
    # the owner may do all of it
    assert as_user(c, b, "scontrol", "hold", j)[0] == 0
    assert c.show_job(jid)["Reason"] == "JobHeldUser"
    assert as_user(c, b, "scontrol", "release", j)[0] == 0
    assert as_user(c, b, "scontrol", "update", f"JobId={j}", "TimeLimit=5")[0] == 0
    assert c.show_job(jid)["TimeLimit"] == "00:05:00"
    assert as_user(c, b, "scancel", j)[0] == 0
    wait_for(lambda: c.show_job(jid)["JobState"] == "CANCELLED", what="cancelled")


def test_a_user_may_lower_the_time_limit_and_raise_it_only_to_max_time(
        make_cluster, test_users):
    c = make_cluster(nodes=1)
    c.ok("scontrol", "update", "PartitionName=debug", "MaxTime=30")
    u = test_users[0]
    jid = submit(c, u, LATER, "-t", "10", "--wrap", "true")
    j = f"JobId={jid}"
    limit = lambda: c.show_job(jid)["TimeLimit"]
    assert as_user(c, u, "scontrol", "update", j, "TimeLimit=5")[0] == 0
    assert limit() == "00:05:00"
    # past the partition's MaxTime: refused, as Slurm does
    for over in ("31", "UNLIMITED"):
        assert as_user(c, u, "scontrol", "update", j, f"TimeLimit={over}") == (
            1, "", f"Access/permission denied for job {jid}\n"), over
        assert limit() == "00:05:00"
    # while pending, up to MaxTime is allowed (Slurm's rule)
    assert as_user(c, u, "scontrol", "update", j, "TimeLimit=20")[0] == 0
    assert limit() == "00:20:00"
    # root (an administrator) may go past it
    c.ok("scontrol", "update", j, "TimeLimit=60")
    assert limit() == "01:00:00"
    # nor may a user raise the priority; lowering is allowed
    prio = int(c.show_job(jid)["Priority"])
    assert as_user(c, u, "scontrol", "update", j, f"Priority={prio + 10}")[0] == 1
    assert int(c.show_job(jid)["Priority"]) == prio
    assert as_user(c, u, "scontrol", "update", j, "Nice=-5")[0] == 1


def test_a_user_may_shorten_a_running_job_but_not_lengthen_it(make_cluster, test_users):
    c = make_cluster(nodes=1)
    a, b = test_users
    jid = submit(c, a, "-t", "10", "--wrap", "sleep 300")
    c.wait_state(jid, "RUNNING")
    j = f"JobId={jid}"
    limit = lambda: c.show_job(jid)["TimeLimit"]
    # another user may not; the owner may lower it, not raise it again
    assert as_user(c, b, "scontrol", "update", j, "TimeLimit=5")[0] == 1
    assert limit() == "00:10:00"
    assert as_user(c, a, "scontrol", "update", j, "TimeLimit=5")[0] == 0
    assert limit() == "00:05:00"
    assert as_user(c, a, "scontrol", "update", j, "TimeLimit=8")[0] == 1
    assert limit() == "00:05:00"
    # a limit already past ends the job now, TIMEOUT
    assert as_user(c, a, "scontrol", "update", j, "TimeLimit=0:01")[0] == 0
    assert c.wait_done(jid)["JobState"] == "TIMEOUT"


def accounts_with_coordinator(c, a, b):
    """physics > theory; b in theory, a coordinates physics."""
    c.ok("sacctmgr", "-i", "add", "account", "physics")
    c.ok("sacctmgr", "-i", "add", "account", "theory", "parent=physics")
    c.ok("sacctmgr", "-i", "add", "account", "chem")
    c.ok("sacctmgr", "-i", "add", "user", b.name, "account=theory")
    c.ok("sacctmgr", "-i", "add", "user", a.name, "account=chem")
    c.ok("sacctmgr", "-i", "add", "coordinator", "account=physics", f"names={a.name}")


def test_a_coordinator_and_an_operator_act_on_others_jobs(make_cluster, test_users):
    c = make_cluster(nodes=1)
    a, b = test_users[0], test_users[1]
    accounts_with_coordinator(c, a, b)
    # b's job in a sub-account of the one a coordinates
    jid = submit(c, b, LATER, "-A", "theory", "-t", "10", "--wrap", "true")
    j = str(jid)
    assert as_user(c, a, "scontrol", "hold", j)[0] == 0
    assert c.show_job(jid)["Reason"] == "JobHeldUser"  # a coordinator is no operator
    assert as_user(c, a, "scontrol", "release", j)[0] == 0
    assert as_user(c, a, "scontrol", "update", f"JobId={j}", "TimeLimit=5")[0] == 0
    assert c.show_job(jid)["TimeLimit"] == "00:05:00"
    # a job outside the accounts a coordinates is not a's
    other = submit(c, b, LATER, "-A", "chem", "--wrap", "true")
    assert as_user(c, a, "scancel", str(other))[0] == 1
    assert as_user(c, a, "scancel", j)[0] == 0
    wait_for(lambda: c.show_job(jid)["JobState"] == "CANCELLED", what="cancelled")

    # an operator acts on any job, lifts an admin hold, but changes no partition
    c.ok("sacctmgr", "-i", "modify", "user", a.name, "set", "AdminLevel=Operator")
    c.ok("scontrol", "hold", str(other))  # root's: an admin hold
    assert c.show_job(other)["Reason"] == "JobHeldAdmin"
    assert as_user(c, a, "scontrol", "release", str(other))[0] == 0
    assert as_user(c, a, "scontrol", "update", f"JobId={other}", "TimeLimit=999")[0] == 0
    assert c.show_job(other)["TimeLimit"] == "16:39:00"
    assert as_user(c, a, "scontrol", "update", "PartitionName=debug", "MaxNodes=1") == (
        1, "", "slurm_update error: Invalid user id\n")
    assert as_user(c, a, "scancel", str(other))[0] == 0
    wait_for(lambda: c.show_job(other)["JobState"] == "CANCELLED", what="cancelled")
    # nor does an operator (or a coordinator) run anything as b: no step in
    # b's allocation, no sbcast into it
    running = submit(c, b, "-A", "theory", "--wrap", "sleep 60")
    c.wait_state(running, "RUNNING")
    rc, out, err = as_user(c, a, "srun", f"--jobid={running}", "id", "-u")
    assert rc != 0 and str(b.uid) not in out and "Access/permission denied" in err, err
    probe = home(c, a) / "probe"
    probe.write_text("x\n")
    rc, _, err = as_user(c, a, "sbcast", f"--jobid={running}", probe, "/tmp/drv-perm-probe")
    assert rc != 0 and "Access/permission denied" in err, err
    # an operator may suspend and resume it (Slurm: operators and up); b may not
    assert as_user(c, b, "scontrol", "suspend", str(running))[0] == 1
    assert as_user(c, a, "scontrol", "suspend", str(running))[0] == 0
    assert c.show_job(running)["JobState"] == "SUSPENDED"
    assert as_user(c, a, "scontrol", "resume", str(running))[0] == 0
    assert c.show_job(running)["JobState"] == "RUNNING"
    assert as_user(c, a, "scancel", str(running))[0] == 0


def test_a_user_changes_no_partition_node_or_accounting(make_cluster, test_users):
    c = make_cluster(nodes=1)
    u = test_users[0]
    parts = c.ok("scontrol", "show", "partition")
    nodes = c.ok("scontrol", "show", "node")
    tables = c.ok("sacctmgr", "-n", "-P", "list", "account")
    denied = "slurm_update error: Invalid user id\n"
    assert as_user(c, u, "scontrol", "update", "PartitionName=debug", "MaxNodes=1") == (
        1, "", denied)
    assert as_user(c, u, "scontrol", "create", "PartitionName=x") == (
        1, "", "Error creating the partition: Invalid user id\n")
    assert as_user(c, u, "scontrol", "delete", "PartitionName=debug") == (
        1, "", "delete_partition PartitionName=debug: Invalid user id\n")
    assert as_user(c, u, "scontrol", "update", "NodeName=n1", "State=DRAIN",
                   "Reason=mine") == (1, "", denied)
    assert as_user(c, u, "sacctmgr", "-i", "add", "account", "x") == (
        1, "", " Problem adding accounts: Access/permission denied\n")
    assert as_user(c, u, "sacctmgr", "-i", "add", "qos", "fast")[0] == 1
    assert as_user(c, u, "scontrol", "reconfigure")[0] == 1
    assert c.ok("scontrol", "show", "partition") == parts
    assert c.ok("scontrol", "show", "node") == nodes
    assert c.ok("sacctmgr", "-n", "-P", "list", "account") == tables


def test_a_coordinator_manages_users_of_its_accounts_only(make_cluster, test_users):
    c = make_cluster(nodes=1)
    a, b = test_users[0], test_users[1]
    accounts_with_coordinator(c, a, b)
    # a sub-account under what a coordinates, and b into it: allowed
    assert as_user(c, a, "sacctmgr", "-i", "add", "account", "qcd", "parent=physics")[0] == 0
    assert as_user(c, a, "sacctmgr", "-i", "add", "user", b.name, "account=qcd")[0] == 0
    # elsewhere, or a QOS, or making someone an operator: refused
    before = c.ok("sacctmgr", "-n", "-P", "list", "assoc", "format=account,user")
    assert as_user(c, a, "sacctmgr", "-i", "add", "account", "bio")[0] == 1
    assert as_user(c, a, "sacctmgr", "-i", "add", "user", b.name, "account=chem")[0] == 1
    assert as_user(c, a, "sacctmgr", "-i", "modify", "user", b.name, "set",
                   "AdminLevel=Operator")[0] == 1
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "format=account,user") == before
    assert "qcd|" + b.name in before


def test_private_data_jobs_hides_others_jobs(make_cluster, test_users):
    c = make_cluster(nodes=1, sets={"PrivateData": "jobs", "MinJobAge": "2"})
    a, b = test_users[0], test_users[1]
    assert "PrivateData             = jobs\n" in c.ok("scontrol", "show", "config")
    mine = submit(c, a, LATER, "--wrap", "true")
    theirs = submit(c, b, LATER, "--wrap", "true")
    ids = lambda u: sorted(as_user(c, u, "squeue", "-h", "-o", "%i")[1].split())
    assert ids(a) == [str(mine)]
    assert ids(b) == [str(theirs)]
    assert sorted(c.ok("squeue", "-h", "-o", "%i").split()) == sorted([str(mine), str(theirs)])
    assert as_user(c, a, "scontrol", "show", "job", str(theirs)) == (
        1, "", "slurm_load_jobs error: Invalid job id specified\n")
    assert as_user(c, a, "scontrol", "show", "job", str(mine))[0] == 0
    reply = raw(c, a, {"v": 1, "type": "job.query", "id": 5,
                       "body": {"fields": ["job_id", "user"]}})
    assert reply["body"]["rows"] == [[mine, a.name]]
    reply = raw(c, a, {"v": 1, "type": "job.query", "id": 6, "body": {}})
    assert [j["job_id"] for j in reply["body"]["jobs"]] == [mine]
    # sacct: ended jobs, while ctld holds them and (MinJobAge=2) from the
    # store's history after
    ran, done = submit(c, a, "--wrap", "true"), submit(c, b, "--wrap", "true")
    c.wait_done(ran)
    c.wait_done(done)
    sacct = lambda u, *args: as_user(c, u, "sacct", "-n", "-X", "-P", "-o", "JobID", *args)
    # (sacct may lag the end by a moment: wait until root sees both)
    both = sorted([str(ran), str(done)])
    wait_for(lambda: sorted(c.ok("sacct", "-n", "-X", "-P", "-o", "JobID", "-a").split())
             == both, what="sacct lists the ended jobs")
    for _ in range(2):
        assert sacct(a, "-a") == (0, f"{ran}\n", "")
        assert sacct(a, "-j", str(done)) == (0, "", "")
        assert sacct(b, "-j", str(done)) == (0, f"{done}\n", "")
        wait_for(lambda: str(done) not in c.ok("squeue", "-h", "-t", "all", "-o", "%i"),
                 what="the ended jobs left ctld's memory")
    # an operator sees them all
    c.ok("sacctmgr", "-i", "add", "account", "chem")
    c.ok("sacctmgr", "-i", "add", "user", a.name, "account=chem", "AdminLevel=Operator")
    assert ids(a) == sorted([str(mine), str(theirs)])
    assert sacct(a, "-j", str(done)) == (0, f"{done}\n", "")


def test_private_data_users_and_accounts(make_cluster, test_users):
    c = make_cluster(nodes=1, sets={"PrivateData": "users,accounts,usage"})
    a, b = test_users[0], test_users[1]
    accounts_with_coordinator(c, a, b)
    users = lambda u: as_user(c, u, "sacctmgr", "-n", "-P", "list", "user",
                              "format=user")[1].split()
    accts = lambda u: as_user(c, u, "sacctmgr", "-n", "-P", "list", "account",
                              "format=account")[1].split()
    assert users(b) == [b.name]
    assert accts(b) == []
    assert users(a) == [a.name]  # a coordinator still sees only themself
    assert sorted(accts(a)) == ["physics", "theory"]
    assert len(c.ok("sacctmgr", "-n", "-P", "list", "user").split()) == 3
