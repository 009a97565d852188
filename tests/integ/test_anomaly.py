"""The anomaly freeze (issue 14, item 7; docs/anomaly.md).

With AnomalyMemRate set, noded freezes a job whose memory grows faster than
the rate over its last AnomalyMemSamples usage samples (with
AnomalyMemFraction, one whose RSS passes that share of the node's memory
without a hard memory limit) and tells ctld, which
shows it SUSPENDED with reason MemoryAnomaly, logs and counts it (sdiag),
and leaves it for an operator: `scontrol resume` thaws it and clears the
reason, and it then runs to its end. With AnomalyDeniedLimit set, a job
whose processes are refused for permission that many times (authd names
the job a request comes from by the caller's cgroup) is frozen the same
way with reason SecurityViolation. Off by default: the same jobs then run
untouched. Bad values are refused naming file:line.

The freezes need root, the shared test users and a writable cgroup
freezer (the job's cgroup names its job to authd); they skip elsewhere."""

import re
import time

import pytest

from conftest import BIN, run, wait_for
from test_suspend import FREEZER, cpu_while_still

needs_freezer = pytest.mark.skipif(
    FREEZER is None, reason="needs root and a writable cgroup freezer")

# Grows by 10 MiB each 0.1 s (touched: RSS) up to 300 MiB, then burns CPU
# until it used `secs` of it; its pid (the batch script's, by exec) first.
GROWER = ("#!/bin/bash\n"
          "echo $$ > {pidfile}\n"
          "exec python3 -c '\n"
          "import time\n"
          "held = []\n"
          "while len(held) < 30:\n"
          "    held.append(b\"\\1\" * (10 << 20))\n"
          "    t = time.time()\n"
          "    while time.time() - t < 0.1: pass\n"
          "while time.process_time() < {secs}: pass\n"
          "print(\"grown\", len(held))'\n")

MEM_ON = {"JobAcctGatherFrequency": "1", "AnomalyMemRate": "40",
          "AnomalyMemSamples": "2"}


def start_grower(c, secs=6, name="grow", *args):
    pidfile = c.work / f"{name}.pid"
    c.write(f"{name}.sh", GROWER.format(pidfile=pidfile, secs=secs))
    jid = c.sbatch("-o", f"{name}.out", "-t", "5:00", *args, f"{name}.sh")
    c.wait_state(jid, "RUNNING")
    pid = wait_for(lambda: pidfile.exists() and pidfile.read_text().strip()
                   and int(pidfile.read_text()), 20, what="the grower's pid")
    return jid, pid


def st_reason(c, jid):
    return c.ok("squeue", "-h", "-j", str(jid), "-o", "%t|%r").strip()


def sdiag_frozen(c):
    out = c.ok("sdiag")
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^Jobs frozen \((\w+)\): +(\d+)$", out, re.M)}


@needs_freezer
def test_a_job_whose_memory_runs_away_is_frozen_until_resumed(make_cluster):
    c = make_cluster(nodes=1, sets=MEM_ON)
    jid, pid = start_grower(c)
    wait_for(lambda: c.state(jid) == "SUSPENDED", 30, what="the MemoryAnomaly freeze")
    assert st_reason(c, jid) == "S|MemoryAnomaly"
    assert c.show_job(jid)["Reason"] == "MemoryAnomaly"
    # noded said why, ctld logged it once and counts it
    assert re.search(rf"job={jid} MemoryAnomaly: memory grew \d+ MiB in [\d.]+ s",
                     c.log("n1")), c.log("n1")
    frozen = re.findall(rf"job={jid} frozen for MemoryAnomaly: node=n1: ", c.log())
    assert len(frozen) == 1, c.log()
    assert sdiag_frozen(c) == {"MemoryAnomaly": 1, "SecurityViolation": 0}
    # frozen: no CPU time, and the limit clock stood still (SecsPreSuspend)
    assert cpu_while_still(pid) <= 1
    assert c.show_job(jid)["SuspendTime"] != "None"
    # the reason is kept across a ctld restart
    c.kill9("ctld")
    c.up()  # restarts only ctld
    assert st_reason(c, jid) == "S|MemoryAnomaly"

    assert c.ok("scontrol", "resume", str(jid)) == ""
    assert st_reason(c, jid) == "R|None"
    done = c.wait_done(jid, timeout=60)
    assert done["JobState"] == "COMPLETED", (done, c.log("n1"))
    assert "grown 30" in (c.work / "grow.out").read_text()
    # resumed by an operator: not frozen again, although it grew on
    assert len(re.findall(rf"job={jid} frozen for", c.log())) == 1


@needs_freezer
def test_rss_past_the_fraction_freezes_a_job_without_a_memory_limit(make_cluster):
    # 0.05 of the node's 4096 MiB: about 205 MiB; the grower reaches 300.
    # Under its cgroup's hard limit (drover up's DefMemPerCPU, below the
    # node's memory) a job is the kernel's to hold: it runs on.
    sets = {"JobAcctGatherFrequency": "1", "AnomalyMemFraction": "0.05"}
    c = make_cluster(nodes=1, sets=sets)
    limited, _ = start_grower(c, 6, "limited")
    done = c.wait_done(limited, timeout=60)
    assert done["JobState"] == "COMPLETED", (done, c.log("n1"))
    assert "grown 30" in (c.work / "limited.out").read_text()
    assert "MemoryAnomaly" not in c.log("n1")
    c.down()
    # without one (ConstrainRAMSpace=no) it is frozen
    c = make_cluster(nodes=1, sets=dict(sets, ConstrainRAMSpace="no"))
    free, pid = start_grower(c, 8, "free")
    wait_for(lambda: c.state(free) == "SUSPENDED", 30, what="the MemoryAnomaly freeze")
    assert st_reason(c, free) == "S|MemoryAnomaly"
    assert re.search(rf"job={free} MemoryAnomaly: RSS \d+ MiB passed "
                     r"AnomalyMemFraction=0.05 of 4096 MiB without a memory limit",
                     c.log("n1")), c.log("n1")
    assert cpu_while_still(pid) <= 1
    c.ok("scancel", str(free))
    assert c.wait_done(free)["JobState"] == "CANCELLED"


@needs_freezer
def test_a_job_that_keeps_cancelling_others_jobs_is_frozen(make_cluster, test_users):
    a, b = test_users
    c = make_cluster(nodes=1, sets={"AnomalyDeniedLimit": "3",
                                    "AnomalyDeniedWindow": "60"})
    d = c.dir / "home"
    d.mkdir()
    d.chmod(0o777)

    def sbatch_as(u, *args):
        rc, out, err = c.run(*u.prefix, "sbatch", "--parsable", *args, cwd=d)
        assert rc == 0, err
        return int(out.split(";")[0])

    victim = sbatch_as(b, "-o", "/dev/null", "--wrap", "sleep 120")
    c.wait_state(victim, "RUNNING")
    script = ("for i in $(seq 1 40); do\n"
              f"  scancel {victim} 2>>tries.err; echo try $i >> tries.out\n"
              "  sleep 0.3\n"
              "done\n")
    jid = sbatch_as(a, "-o", "/dev/null", "-t", "5:00", "--wrap", script)
    wait_for(lambda: c.state(jid) == "SUSPENDED", 40, what="the SecurityViolation freeze")
    assert st_reason(c, jid) == "S|SecurityViolation"
    log = c.log()
    counted = re.findall(rf"job={jid}: job.cancel refused for permission to "
                         rf"uid={a.uid} \((\d) of AnomalyDeniedLimit=3 within 60 s\)", log)
    assert counted == ["1", "2", "3"], log
    assert re.search(rf"job={jid} frozen for SecurityViolation: 3 requests refused",
                     log), log
    # scancel said Slurm's words each time; the victim was not touched
    errs = (d / "tries.err").read_text()
    assert f"scancel: error: Kill job error on job id {victim}: " \
           "Access/permission denied" in errs, errs
    assert c.state(victim) == "RUNNING"
    # frozen: no more tries while it stays so (the third scancel may be
    # frozen before it printed its answer)
    tries = (d / "tries.out").read_text().count("try")
    assert 2 <= tries <= 4, tries
    time.sleep(1.5)  # a measurement: what a frozen job does in 1.5 s
    assert (d / "tries.out").read_text().count("try") == tries
    assert c.state(jid) == "SUSPENDED"
    assert sdiag_frozen(c) == {"MemoryAnomaly": 0, "SecurityViolation": 1}
    # the refusals of a user's own shell (no job) count against nothing
    for _ in range(4):
        rc, out, err = c.run(*a.prefix, "scancel", str(victim), cwd=d)
        assert rc == 1
    assert sdiag_frozen(c)["SecurityViolation"] == 1
    # an operator ends it
    c.ok("scancel", str(jid))
    assert c.wait_done(jid)["JobState"] == "CANCELLED"
    c.ok("scancel", str(victim))


@needs_freezer
def test_with_the_policy_off_nothing_is_frozen(make_cluster, test_users):
    a, b = test_users
    c = make_cluster(nodes=1, sets={"JobAcctGatherFrequency": "1"})
    jid, pid = start_grower(c, secs=4)
    d = c.dir / "home"
    d.mkdir()
    d.chmod(0o777)
    rc, out, err = c.run(*b.prefix, "sbatch", "--parsable", "-o", "/dev/null",
                         "--wrap", "sleep 120", cwd=d)
    victim = int(out.split(";")[0])
    c.wait_state(victim, "RUNNING")
    rc, out, err = c.run(*a.prefix, "sbatch", "--parsable", "-o", "/dev/null",
                         "--wrap", f"for i in 1 2 3 4 5 6; do scancel {victim}; done; true",
                         cwd=d)
    prober = int(out.split(";")[0])
    for j in (jid, prober):
        done = c.wait_done(j, timeout=60)
        assert done["JobState"] == "COMPLETED", done
        assert done["SuspendTime"] == "None", done
    assert "frozen for" not in c.log()
    assert "MemoryAnomaly" not in c.log("n1")
    assert sdiag_frozen(c) == {}  # the counters show only with the policy on
    c.ok("scancel", str(victim))


@pytest.mark.parametrize("line, message", [
    ("AnomalyMemRate=fast", "AnomalyMemRate"),
    ("AnomalyMemRate=-1", "AnomalyMemRate"),
    ("AnomalyMemFraction=1.5",
     "AnomalyMemFraction: '1.5' is not a fraction (0 to 1, e.g. 0.8)"),
    ("AnomalyMemFraction=80%",
     "AnomalyMemFraction: '80%' is not a fraction (0 to 1, e.g. 0.8)"),
    ("AnomalyMemSamples=1", "AnomalyMemSamples"),
    ("AnomalyDeniedLimit=many", "AnomalyDeniedLimit"),
    ("AnomalyDeniedWindow=0", "AnomalyDeniedWindow"),
])
def test_bad_values_are_refused_naming_file_and_line(tmp_path, line, message):
    conf = tmp_path / "drover.conf"
    conf.write_text("ClusterName=x\nSlurmctldHost=localhost\n"
                    f"{line}\nNodeName=n1 CPUs=1\n")
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", conf])
    assert (rc, out) == (1, ""), err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"drover-ctld: error: {conf}:3: {message}"), err


def test_good_values_load(tmp_path):
    conf = tmp_path / "drover.conf"
    conf.write_text("ClusterName=x\nSlurmctldHost=localhost\n"
                    "AnomalyMemRate=200\nAnomalyMemFraction=0.8\nAnomalyMemSamples=4\n"
                    "AnomalyDeniedLimit=10\nAnomalyDeniedWindow=120\nNodeName=n1 CPUs=1\n")
    key = tmp_path / "drover.key"
    key.write_text("ab" * 32 + "\n")
    key.chmod(0o600)
    assert run([BIN / "drover-ctld", "-t", "-f", conf]) == (0, "", "")
