"""Issue 3's client commands against a real local cluster: sbatch's bad
resource values (Slurm's message, exit 1, nothing submitted), the fields
sbatch now sends, sinfo's summary, formats and reasons, squeue's new
fields, scancel's filters and scontrol update JobId=. Tests marked
"needs ctld" depend on ctld storing the issue-3 job fields."""

import os
import pwd
import re
import time

import pytest


def job_count(c):
    return len(c.job_ids())


# Slurm's sbatch exits 255 for what its option parser refuses (--mem,
# --open-mode, --exclusive values) and 1 for what it checks later.
@pytest.mark.parametrize("args, message, status", [
    (["--mem=abc"], "sbatch: error: Invalid --mem specification", 255),
    (["--mem-per-cpu=1x"], "sbatch: error: Invalid --mem-per-cpu specification", 255),
    (["-c", "0"], 'sbatch: error: Invalid numeric value "0" for --cpus-per-task.', 1),
    (["-n", "0"], 'sbatch: error: Invalid numeric value "0" for --ntasks.', 1),
    (["--gpus=-1"], "sbatch: error: Batch job submission failed: "
                    "Invalid generic resource (gres) specification", 1),
    (["--gres=gpu:-1"], "sbatch: error: Batch job submission failed: "
                        "Invalid generic resource (gres) specification", 1),
    (["--gres=gpu:2,foo:1"], "sbatch: error: Batch job submission failed: "
                             "Invalid generic resource (gres) specification", 1),
    (["--nice=abc"], "sbatch: error: Invalid --nice value: abc", 1),
    (["--open-mode=foo"], "sbatch: error: Invalid --open-mode specification", 255),
    (["--exclusive=bogus"], "sbatch: error: Invalid --exclusive specification", 255),
    (["--mem=1G", "--mem-per-cpu=1G"],
     "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", 1),
])
def test_bad_resource_values(cluster, args, message, status):
    keep = cluster.sbatch("-H", "--wrap", "true")
    rc, out, err = cluster.run("sbatch", *args, "--wrap", "true")
    assert rc == status, (rc, out, err)
    assert out == ""
    assert err == message + "\n"
    assert cluster.job_ids() == [keep]


def test_bad_value_in_directive_also_refused(cluster):
    script = cluster.write("bad.sh", "#!/bin/sh\n#SBATCH --mem=lots\ntrue\n")
    rc, out, err = cluster.run("sbatch", script)
    assert rc == 255 and err == "sbatch: error: Invalid --mem specification\n"
    assert job_count(cluster) == 0


def test_unknown_gpu_type_and_too_many_gpus_refused(make_cluster):
    """needs ctld: GPUs checked against the nodes at submit."""
    c = make_cluster(nodes=1)
    for args, text in ((["--gres=gpu:nosuchtype:1"], None),
                       (["--gpus=64"], None)):
        rc, out, err = c.run("sbatch", *args, "--wrap", "true")
        assert rc == 1, (args, out, err)
        assert err.startswith("sbatch: error: Batch job submission failed: ")
        assert ("Requested node configuration is not available" in err
                or "Invalid generic resource (gres) specification" in err)
    assert job_count(c) == 0


def test_malformed_dependency_refused(cluster):
    """needs ctld: dependencies validated at submit (an unknown job id is
    refused too: test_dependencies.py)."""
    rc, out, err = cluster.run("sbatch", "--dependency=afterok:x1", "--wrap", "true")
    assert rc == 1, (out, err)
    assert err == "sbatch: error: Batch job submission failed: Job dependency problem\n"
    assert job_count(cluster) == 0


def test_sinfo_default_and_formats(cluster):
    out = cluster.ok("sinfo")
    lines = out.splitlines()
    assert lines[0] == "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"
    assert re.fullmatch(r"debug\*\s+up\s+infinite\s+2\s+idle n\[1-2\]", lines[1]), out
    assert cluster.ok("sinfo", "-o", "%P") == "PARTITION\ndebug*\n"
    out = cluster.ok("sinfo", "-a", "-o", "%P %G %l %p %c %m")
    head, row = out.splitlines()
    assert head == "PARTITION GRES TIMELIMIT PRIO_TIER CPUS MEMORY"
    fields = row.split(" ")
    assert len(fields) == 6 and fields[0] == "debug*" and fields[1] == "(null)"
    assert fields[2] == "infinite" and fields[4].isdigit() and fields[5].isdigit()
    assert cluster.ok("sinfo", "-h", "-o", "%P %a %D %T") == "debug* up 2 idle\n"
    out = cluster.ok("sinfo", "-N", "-h", "-o", "%N %t")
    assert out == "n1 idle\nn2 idle\n"
    # Slurm 22.05 reports an unknown letter, prints it through and exits 0
    rc, out, err = cluster.run("sinfo", "-o", "%Q")
    assert (rc, out, err) == (0, "%Q\n%Q\n", "Invalid node format specification: Q\n")
    assert cluster.ok("sinfo", "--version").startswith("slurm 22.05")


def test_sinfo_drain_reason_user_and_time(cluster):
    before = int(time.time())
    cluster.ok("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=maint")
    out = cluster.ok("sinfo", "-h", "-o", "%P %t %N")
    assert "debug* drain n1" in out.splitlines(), out
    assert "debug* idle n2" in out.splitlines(), out
    out = cluster.ok("sinfo", "-R")
    head, row = out.splitlines()
    assert head == "REASON               USER      TIMESTAMP           NODELIST"
    reason, user, stamp, nodes = row.split()
    assert (reason, nodes) == ("maint", "n1")
    assert user == pwd.getpwuid(os.geteuid()).pw_name
    t = time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))
    assert before - 2 <= t <= time.time() + 2
    assert cluster.ok("sinfo", "-h", "-t", "drain", "-o", "%N") == "n1\n"
    assert cluster.ok("sinfo", "-h", "-t", "idle", "-o", "%N") == "n2\n"


def test_squeue_account_and_qos(cluster):
    """needs ctld: account/qos kept in the job record."""
    jid = cluster.sbatch("-H", "-A", "proj", "--qos=normal", "--wrap", "true")
    out = cluster.ok("squeue", "-h", "-j", str(jid), "-o", "%i|%a|%q")
    assert out == f"{jid}|proj|normal\n"


def test_squeue_defaults_without_account(cluster):
    """No -A: the user's DefaultAccount (root's is root; others have none
    until sacctmgr adds them)."""
    jid = cluster.sbatch("-H", "--wrap", "true")
    out = cluster.ok("squeue", "-h", "-j", str(jid), "-o", "%i|%a|%q|%K|%h")
    account = "root" if os.getuid() == 0 else "(null)"
    assert out == f"{jid}|{account}|normal|N/A|OK\n"
    out = cluster.ok("squeue", "-O", "JobID,Account,QOS")
    assert out.splitlines()[0].split() == ["JOBID", "ACCOUNT", "QOS"]


def test_scancel_filters(cluster):
    a1 = cluster.sbatch("-H", "-J", "alpha", "--wrap", "true")
    a2 = cluster.sbatch("-H", "-J", "alpha", "--wrap", "true")
    b = cluster.sbatch("-H", "-J", "beta", "--wrap", "true")
    cluster.ok("scancel", "-n", "alpha")
    assert cluster.job_ids() == [b]
    assert cluster.state(a1) == "CANCELLED" and cluster.state(a2) == "CANCELLED"
    cluster.ok("scancel", "-t", "RUNNING", "--me")
    assert cluster.job_ids() == [b]
    cluster.ok("scancel", "-p", "nosuch")
    assert cluster.job_ids() == [b]
    cluster.ok("scancel", "--me", "-t", "PD")
    assert cluster.job_ids() == []
    rc, out, err = cluster.run("scancel", "-t", "COMPLETED")
    assert rc == 1 and "Invalid job state specified: COMPLETED" in err
    rc, out, err = cluster.run("scancel", "-u", "no-such-user-here")
    assert rc == 1 and "Invalid user name: no-such-user-here" in err


def test_scontrol_update_job(cluster):
    """needs ctld: job.update."""
    jid = cluster.sbatch("-H", "--wrap", "true")
    cluster.ok("scontrol", "update", f"JobId={jid}", "TimeLimit=10:00", "Nice=5")
    job = cluster.show_job(jid)
    assert job["TimeLimit"] == "00:10:00" and job["Nice"] == "5"
    rc, out, err = cluster.run("scontrol", "update", f"JobId={jid}", "Bogus=1")
    assert rc == 1 and "Update of this parameter is not supported: Bogus=1" in err
    # a three-letter key is no JobId (it once was, whatever its letters)
    rc, out, err = cluster.run("scontrol", "update", f"JobId={jid}", "Foo=5")
    assert rc == 1 and "Update of this parameter is not supported: Foo=5" in err


def test_scontrol_show_job_resources(cluster):
    """needs ctld: the issue-3 job record fields."""
    jid = cluster.sbatch("-H", "-n", "2", "-c", "1", "--mem=100M", "-A", "proj",
                         "--wrap", "true")
    job = cluster.show_job(jid)
    out = cluster.ok("scontrol", "show", "job", str(jid))
    assert " NumTasks=2 CPUs/Task=1 " in out, out
    assert job["MinMemoryNode"] == "100M"
    assert job["Account"] == "proj" and job["QOS"] == "normal"
