"""scontrol suspend and resume (Slurm's semantics): a suspended job is frozen
on its nodes (the cgroup freezer when the node has one; SIGSTOP and SIGCONT
to its process groups when it has none, as in local mode), shows SUSPENDED
(squeue ST "S"), keeps its nodes, and its time-limit clock stands still:
the limit moves on by the time it was suspended and RunTime leaves that time
out. It stays suspended across a ctld restart. Bad input gets Slurm's
message and exit 1 and changes nothing.

The freezer tests need root and a writable freezer (cgroup v1's freezer
hierarchy or cgroup v2's cgroup.freeze) and skip elsewhere; the local-mode
test runs its cluster as nobody (no cgroups: the SIGSTOP path) and needs
root only to switch to nobody."""

import os
import pathlib
import re
import time

import pytest

from conftest import as_nobody_prefix, run, wait_for

CG = pathlib.Path("/sys/fs/cgroup")
TICK = os.sysconf("SC_CLK_TCK")


def freezer_usable():
    """Which freezer a root cluster's jobs get here: "v1", "v2" or None."""
    if os.geteuid() != 0:
        return None
    if (CG / "cgroup.controllers").exists():
        return "v2" if os.access(CG, os.W_OK) else None
    mem, frz = CG / "memory", CG / "freezer"
    if ((mem / "memory.limit_in_bytes").exists() and os.access(mem, os.W_OK)
            and (frz / "cgroup.procs").exists() and os.access(frz, os.W_OK)):
        return "v1"
    return None


FREEZER = freezer_usable()
needs_freezer = pytest.mark.skipif(
    FREEZER is None, reason="needs root and a writable cgroup freezer")
needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="needs root to run a cluster as nobody")

# Burns CPU until it used `secs` of it (so it cannot finish while frozen),
# its pid (the batch script's own, by exec) in a file first.
BURNER = ("#!/bin/bash\n"
          "echo $$ > {pidfile}\n"
          "exec python3 -c 'import time\n"
          "while time.process_time() < {secs}: pass\n"
          "print(\"burnt\")'\n")


def proc_stat(pid):
    """(state letter, utime + stime in ticks) of pid from /proc/PID/stat."""
    text = pathlib.Path(f"/proc/{pid}/stat").read_text()
    rest = text[text.rindex(")") + 2:].split()
    return rest[0], int(rest[11]) + int(rest[12])


def start_burner(c, secs, *args):
    """A running burner job that used a second of CPU already: (jid, pid)."""
    pidfile = c.work / "burner.pid"
    c.write("burn.sh", BURNER.format(pidfile=pidfile, secs=secs))
    jid = c.sbatch("-o", "burn.out", *args, "burn.sh")
    c.wait_state(jid, "RUNNING")
    pid = wait_for(lambda: pidfile.exists() and pidfile.read_text().strip()
                   and int(pidfile.read_text()), 20, what="the burner's pid")
    # it burns: its CPU time grows (the exec of python3 has happened)
    first = proc_stat(pid)[1]
    wait_for(lambda: proc_stat(pid)[1] > first + TICK, 20, what="the burner to burn")
    return jid, pid


def squeue_st(c, jid):
    return c.ok("squeue", "-h", "-j", str(jid), "-o", "%t|%R").strip()


def cpu_while_still(pid, seconds=1.5):
    """CPU ticks pid used over `seconds` (a measurement, not a wait)."""
    before = proc_stat(pid)[1]
    time.sleep(seconds)
    return proc_stat(pid)[1] - before


def freezer_state(pid):
    """The job cgroup's freezer state as the kernel shows it for pid."""
    for line in pathlib.Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        hid, ctls, path = line.split(":", 2)
        if FREEZER == "v1" and "freezer" in ctls.split(","):
            job = re.sub(r"/step_[^/]+$", "", path)
            return (CG / "freezer" / job.lstrip("/") / "freezer.state").read_text().strip()
        if FREEZER == "v2" and hid == "0":
            job = re.sub(r"/step_[^/]+$", "", path)
            return (CG / job.lstrip("/") / "cgroup.freeze").read_text().strip()
    return None


def stamp(text):
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


@needs_freezer
def test_frozen_job_uses_no_cpu_and_completes_after_resume(make_cluster):
    c = make_cluster(nodes=1)
    assert re.search(r"cgroup v[12] under", c.log("n1")), c.log("n1")
    jid, pid = start_burner(c, 4, "-t", "5:00")
    assert c.ok("scontrol", "suspend", str(jid)) == ""
    assert c.state(jid) == "SUSPENDED"
    # the kernel froze the job's cgroup (not SIGSTOP: that would show T)
    frozen = "FROZEN" if FREEZER == "v1" else "1"
    wait_for(lambda: freezer_state(pid) == frozen, 10, what="the cgroup to freeze")
    assert re.search(rf"job={jid} suspend: cgroup frozen", c.log("n1")), c.log("n1")
    assert proc_stat(pid)[0] != "T"
    assert cpu_while_still(pid) <= 1  # at most one tick of accounting slack
    # SUSPENDED as Slurm shows it: ST "S", its nodes, SuspendTime set
    assert squeue_st(c, jid) == "S|n1"
    assert c.ok("squeue", "-h", "-t", "S", "-o", "%i").split() == [str(jid)]
    assert c.ok("squeue", "-h", "-t", "SUSPENDED", "-o", "%i").split() == [str(jid)]
    assert c.ok("squeue", "-h", "-t", "R", "-o", "%i").split() == []
    job = c.show_job(jid)
    assert job["SuspendTime"] != "None", job
    assert int(job["SecsPreSuspend"]) >= 1, job
    # the clock stands still: RunTime is what it ran before the suspend
    assert job["RunTime"] == c.show_job(jid)["RunTime"]
    rows = c.ok("sacct", "-j", str(jid), "-X", "-n", "-P", "--format=State")
    assert rows.strip() == "SUSPENDED", rows
    # its node stays allocated to it
    assert c.show_node("n1")["State"].startswith(("ALLOCATED", "MIXED"))

    assert c.ok("scontrol", "resume", str(jid)) == ""
    assert c.state(jid) == "RUNNING"
    wait_for(lambda: freezer_state(pid) in ("THAWED", "0"), 10, what="the thaw")
    done = c.wait_done(jid, timeout=60)
    assert done["JobState"] == "COMPLETED", done
    assert "burnt" in (c.work / "burn.out").read_text()
    assert done["SuspendTime"] != "None", done
    out = c.ok("sacct", "-j", str(jid), "-X", "-n", "-P",
               "--format=State,Elapsed,Suspended")
    state, elapsed, suspended = out.strip().split("|")
    assert state == "COMPLETED", out
    assert suspended != "00:00:00", out


@needs_freezer
def test_time_limit_moves_on_by_the_suspended_time(make_cluster):
    c = make_cluster(nodes=1)
    c.write("long.sh", "#!/bin/bash\nsleep 60\n")
    jid = c.sbatch("-t", "0:04", "-o", "long.out", "long.sh")
    job = c.wait_state(jid, "RUNNING")
    start = stamp(job["StartTime"])
    assert c.ok("scontrol", "suspend", str(jid)) == ""
    time.sleep(3.2)  # the scenario: three seconds suspended
    assert c.state(jid) == "SUSPENDED"  # its 4 s limit did not end it meanwhile
    assert c.ok("scontrol", "resume", str(jid)) == ""
    end_shown = stamp(c.show_job(jid)["EndTime"])
    assert end_shown >= start + 7, c.show_job(jid)
    done = c.wait_done(jid, timeout=30)
    assert (done["JobState"], done["Reason"]) == ("TIMEOUT", "TimeLimit"), (done, c.log(), c.log("n1"))
    assert stamp(done["EndTime"]) - start >= 7, (done, c.log(), c.log("n1"))
    # RunTime leaves the suspended time out: about the 4 s limit
    h, m, s = (int(x) for x in done["RunTime"].split(":"))
    assert 3 <= h * 3600 + m * 60 + s <= 5, done
    # sacct: Elapsed leaves the suspended time out, Suspended is that time
    out = c.ok("sacct", "-j", str(jid), "-X", "-n", "-P",
               "--format=State,ElapsedRaw,Suspended")
    state, elapsed, suspended = out.strip().split("|")
    assert state == "TIMEOUT", out
    assert 3 <= int(elapsed) <= 5, out
    assert suspended in ("00:00:03", "00:00:04"), out


@needs_freezer
def test_suspended_job_stays_suspended_across_a_ctld_restart(make_cluster):
    c = make_cluster(nodes=1)
    jid, pid = start_burner(c, 3, "-t", "5:00")
    assert c.ok("scontrol", "suspend", str(jid)) == ""
    frozen = "FROZEN" if FREEZER == "v1" else "1"
    wait_for(lambda: freezer_state(pid) == frozen, 10, what="the cgroup to freeze")
    before = c.show_job(jid)
    c.kill9("ctld")
    c.up()  # restarts only ctld
    job = c.show_job(jid)
    assert job["JobState"] == "SUSPENDED", job
    for key in ("SuspendTime", "SecsPreSuspend", "StartTime", "NodeList"):
        assert job[key] == before[key], (key, job, before)
    assert freezer_state(pid) == frozen
    assert cpu_while_still(pid) <= 1
    assert c.ok("scontrol", "resume", str(jid)) == ""
    done = c.wait_done(jid, timeout=60)
    assert done["JobState"] == "COMPLETED", done


@needs_freezer
def test_cancel_of_a_suspended_job_ends_it(make_cluster):
    c = make_cluster(nodes=1)
    jid, pid = start_burner(c, 30, "-t", "5:00")
    assert c.ok("scontrol", "suspend", str(jid)) == ""
    c.ok("scancel", str(jid))
    done = c.wait_done(jid, timeout=30)
    assert done["JobState"] == "CANCELLED", done
    wait_for(lambda: not pathlib.Path(f"/proc/{pid}").exists()
             or proc_stat(pid)[0] == "Z", 20, what="the frozen burner to die")
    # Slurm: a job ended while suspended ended when it was suspended
    assert done["EndTime"] == done["SuspendTime"], done


@needs_root
def test_local_mode_stops_and_continues_the_processes(make_cluster):
    c = make_cluster(nodes=1, owner="nobody")
    assert re.search(r"jobs run unconstrained|without cgroups", c.log("n1")), c.log("n1")
    jid, pid = start_burner(c, 4, "-t", "5:00")
    assert c.ok("scontrol", "suspend", str(jid)) == ""
    wait_for(lambda: proc_stat(pid)[0] == "T", 10, what="SIGSTOP to take effect")
    assert re.search(rf"job={jid} suspend: no freezer .*SIGSTOP", c.log("n1")), c.log("n1")
    assert squeue_st(c, jid) == "S|n1"
    assert cpu_while_still(pid) <= 1
    assert c.ok("scontrol", "resume", str(jid)) == ""
    wait_for(lambda: proc_stat(pid)[0] != "T", 10, what="SIGCONT to take effect")
    done = c.wait_done(jid, timeout=60)
    assert done["JobState"] == "COMPLETED", done


def refused(c, *args, prefix=()):
    cmd = list(prefix) + [str(c.bin / "scontrol"), *args]
    rc, out, err = run(cmd, env=c.env, cwd=c.work)
    assert rc == 1, (args, rc, out, err)
    assert out == "", (args, out)
    return err


def test_bad_input_gets_slurms_messages_and_changes_nothing(make_cluster):
    c = make_cluster(nodes=1)
    assert refused(c, "suspend") == "too few arguments for keyword:suspend\n"
    assert refused(c, "resume") == "too few arguments for keyword:resume\n"
    assert refused(c, "suspend", "abc") == "Invalid job id specified for job abc\n"
    assert refused(c, "suspend", "99999") == "Invalid job id specified for job 99999\n"
    # pending (held), running, finished
    held = c.sbatch("-H", "--wrap", "true")
    assert refused(c, "suspend", str(held)) == f"Job is pending execution for job {held}\n"
    assert refused(c, "resume", str(held)) == f"Job is pending execution for job {held}\n"
    c.write("long.sh", "#!/bin/bash\ntouch started\nsleep 60\n")
    jid = c.sbatch("-o", "/dev/null", "long.sh")
    wait_for(lambda: (c.work / "started").exists(), 20, what="the script to run")
    assert refused(c, "resume", str(jid)) == f"Job is not suspended for job {jid}\n"
    done = c.sbatch("--wrap", "true", "-o", "/dev/null")
    c.wait_done(done)
    assert refused(c, "suspend", str(done)) == \
        f"Job/step already completing or completed for job {done}\n"
    # several ids, one bad: the others are still done, the exit is 1
    err = refused(c, "suspend", f"jobid={held},{jid}")
    assert err == f"Job is pending execution for job {held}\n", err
    assert c.state(jid) == "SUSPENDED"
    assert c.ok("scontrol", "resume", f"job={jid}") == ""
    assert c.state(jid) == "RUNNING"
    # operators and administrators only
    if os.geteuid() == 0:
        err = refused(c, "suspend", str(jid), prefix=as_nobody_prefix())
        assert err == f"Access/permission denied for job {jid}\n", err
        assert c.state(jid) == "RUNNING"
        assert re.search(rf"job={jid} suspend refused to uid=65534", c.log()), c.log()
    # -Q: the refusal is silent, the exit still 1
    assert refused(c, "-Q", "resume", str(jid)) == ""
    assert c.state(held) == "PENDING" and c.state(jid) == "RUNNING"


def test_no_step_starts_in_a_suspended_allocation(make_cluster):
    c = make_cluster(nodes=1)
    rc, out, err = c.run("salloc", "-N1", "--no-shell", "-t", "5:00")
    assert rc == 0, (out, err)
    jid = int(re.search(r"Granted job allocation (\d+)", err).group(1))
    assert c.ok("scontrol", "suspend", str(jid)) == ""
    assert squeue_st(c, jid) == "S|n1"
    rc, out, err = c.run("srun", f"--jobid={jid}", "true")
    assert rc == 1, (out, err)
    assert err == (f"srun: error: Unable to create step for job {jid}: "
                   "Requested operation is presently disabled\n"), err
    assert c.ok("scontrol", "resume", str(jid)) == ""
    assert c.ok("srun", f"--jobid={jid}", "echo", "ran") == "ran\n"
    c.ok("scancel", str(jid))
