"""Signals and ends reach every process of a job as its cgroup tracks it
(Slurm's proctrack/cgroup), not only its process group: a `setsid` child
gets scancel's SIGTERM and the time limit's, a daemon that left the job's
session is killed at the job's end before the end is reported, and
processes that outlive SIGKILL by UnkillableStepTimeout drain the node with
Slurm's reason "Kill task failed". `drover up --no-cgroups` turns cgroups
off (the process group is then all a signal reaches).

Needs root and a writable cgroup memory controller; the drain test also
needs cgroup v1's freezer (it makes a process unkillable by freezing it in
a freezer cgroup of its own, outside the job's). Skipped elsewhere, with
the reason."""

import os
import pathlib
import re

import pytest

from conftest import pid_alive, wait_for

CG = pathlib.Path("/sys/fs/cgroup")


def memory_root():
    """The memory controller's root we may write to, or None."""
    if os.geteuid() != 0:
        return None
    try:
        if "memory" in (CG / "cgroup.controllers").read_text().split():
            return CG if os.access(CG, os.W_OK) else None
    except OSError:
        pass
    mem = CG / "memory"
    if (mem / "memory.limit_in_bytes").exists() and os.access(mem, os.W_OK):
        return mem
    return None


ROOT = memory_root()
pytestmark = pytest.mark.skipif(
    ROOT is None, reason="needs root and a writable cgroup memory controller")

# A child in a session (and process group) of its own that, on SIGTERM,
# writes FLAG and exits; it records its pid in PIDFILE first.
SETSID_CHILD = ("setsid bash -c 'trap \"echo got-term > {flag}; exit 0\" TERM; "
                "echo $$ > {pidfile}; while :; do sleep 0.2; done' &\n")


def read_pid(path):
    return wait_for(lambda: path.exists() and (t := path.read_text().strip())
                    and int(t), 20, what=f"{path}")


def session_of(pid):
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[3])


def test_scancel_sigterm_reaches_a_setsid_child(make_cluster):
    c = make_cluster(nodes=1, sets={"KillWait": "5"})
    flag, pidfile = c.work / "term.flag", c.work / "child.pid"
    c.write("job.sh", "#!/bin/bash\n" +
            SETSID_CHILD.format(flag=flag, pidfile=pidfile) + "sleep 300\n")
    jid = c.sbatch("-o", "job.out", "job.sh")
    c.wait_state(jid, "RUNNING")
    child = read_pid(pidfile)
    # it did leave the batch shell's session and group
    assert session_of(child) == child
    c.ok("scancel", str(jid))
    job = c.wait_done(jid, timeout=30)
    assert job["JobState"] == "CANCELLED", job
    # the trap ran: SIGTERM came, not only the SIGKILL of the end
    assert wait_for(lambda: flag.exists() and flag.read_text(), 10,
                    what="the child's flag") == "got-term\n"
    assert not pid_alive(child)


def test_time_limit_sigterm_reaches_a_setsid_child(make_cluster):
    c = make_cluster(nodes=1, sets={"KillWait": "5"})
    flag, pidfile = c.work / "term.flag", c.work / "child.pid"
    c.write("job.sh", "#!/bin/bash\n" +
            SETSID_CHILD.format(flag=flag, pidfile=pidfile) + "sleep 300\n")
    jid = c.sbatch("-t", "0:3", "-o", "job.out", "job.sh")
    child = read_pid(pidfile)
    job = c.wait_done(jid, timeout=30)
    assert (job["JobState"], job["Reason"]) == ("TIMEOUT", "TimeLimit"), job
    assert flag.read_text() == "got-term\n"
    assert not pid_alive(child)


def test_step_cancel_reaches_a_setsid_child_of_a_task(make_cluster):
    c = make_cluster(nodes=1, sets={"KillWait": "5"})
    flag, pidfile = c.work / "term.flag", c.work / "child.pid"
    c.write("task.sh", "#!/bin/bash\n" +
            SETSID_CHILD.format(flag=flag, pidfile=pidfile) + "sleep 300\n")
    c.write("job.sh", "#!/bin/bash\nsrun ./task.sh\n")
    jid = c.sbatch("-o", "job.out", "job.sh")
    child = read_pid(pidfile)
    # the step alone: a cancel of the job would also have srun (SIGTERM in
    # the batch step) send the step the SIGKILL of "forcing job
    # termination", as Slurm's srun does, racing the child's trap
    c.ok("scancel", f"{jid}.0")
    assert wait_for(lambda: flag.exists() and flag.read_text(), 10,
                    what="the child's flag") == "got-term\n"
    c.wait_done(jid, timeout=30)
    assert not pid_alive(child)


def test_signal_option_reaches_a_setsid_child(make_cluster):
    """scancel -f -s USR1: every process of the batch step."""
    c = make_cluster(nodes=1)
    flag, pidfile = c.work / "usr1.flag", c.work / "child.pid"
    # the batch shell lives on (a trap that was ignored instead would be
    # ignored by its children too, which could then not trap it)
    c.write("job.sh", "#!/bin/bash\ntrap 'echo batch-usr1' USR1\n"
            f"setsid bash -c 'trap \"echo got-usr1 > {flag}\" USR1; "
            f"echo $$ > {pidfile}; while :; do sleep 0.2; done' &\n"
            "while :; do sleep 0.2; done\n")
    jid = c.sbatch("-o", "job.out", "job.sh")
    c.wait_state(jid, "RUNNING")
    read_pid(pidfile)
    c.ok("scancel", "-f", "-s", "USR1", str(jid))
    assert wait_for(lambda: flag.exists() and flag.read_text(), 10,
                    what="the child's flag") == "got-usr1\n"
    c.ok("scancel", str(jid))
    c.wait_done(jid, timeout=30)


def test_daemon_in_its_own_session_does_not_outlive_its_job(make_cluster):
    c = make_cluster(nodes=1)
    pidfile = c.work / "daemon.pid"
    # double fork, new session, SIGTERM and SIGHUP ignored; the script
    # exits at once, leaving the daemon to init
    c.write("job.sh", "#!/bin/bash\n"
            "setsid bash -c '(trap \"\" TERM HUP; echo $BASHPID > "
            f"{pidfile}.tmp; mv {pidfile}.tmp {pidfile}; exec sleep 300) &'\n"
            f"while [ ! -s {pidfile} ]; do sleep 0.1; done\n"
            "echo launched\n")
    jid = c.sbatch("-o", "job.out", "job.sh")
    daemon = read_pid(pidfile)
    job = c.wait_done(jid, timeout=30)
    assert job["JobState"] == "COMPLETED", job
    # its end is reported once nothing of it is left
    assert not pid_alive(daemon), f"daemon {daemon} outlived job {jid}"
    assert "launched" in (c.work / "job.out").read_text()


def test_lost_shepherd_leaves_no_daemon_behind(make_cluster):
    """A shepherd killed with SIGKILL: noded kills its group and, with a
    cgroup, what left the group too."""
    c = make_cluster(nodes=1)
    pidfile = c.work / "daemon.pid"
    c.write("job.sh", "#!/bin/bash\n"
            "setsid bash -c '(trap \"\" TERM HUP; echo $BASHPID > "
            f"{pidfile}.tmp; mv {pidfile}.tmp {pidfile}; exec sleep 300) &'\n"
            "sleep 300\n")
    jid = c.sbatch("--no-requeue", "-o", "job.out", "job.sh")
    daemon = read_pid(pidfile)
    shepherd = int(next((c.dir / "spool").glob(f"*/job.{jid}/shepherd.pid"))
                   .read_text().split()[0])
    os.kill(shepherd, 9)
    job = c.wait_state(jid, "NODE_FAIL", 30)
    assert job["JobState"] == "NODE_FAIL", job
    wait_for(lambda: not pid_alive(daemon), 10, what=f"daemon {daemon} to die")


FREEZER = CG / "freezer"


@pytest.mark.skipif(not (FREEZER / "cgroup.procs").exists()
                    or ROOT != CG / "memory",
                    reason="needs cgroup v1 with a freezer hierarchy")
@pytest.mark.parametrize("where", ["batch", "step"])
def test_unkillable_process_drains_the_node(make_cluster, where):
    c = make_cluster(nodes=1, sets={"UnkillableStepTimeout": "2"})
    assert re.search(r"^UnkillableStepTimeout += 2 sec$",
                     c.ok("scontrol", "show", "config"), re.M)
    pidfile, go = c.work / "victim.pid", c.work / "go"
    body = (f"sleep 300 & echo $! > {pidfile}\n"
            f"while [ ! -e {go} ]; do sleep 0.1; done\n")
    c.write("task.sh", "#!/bin/bash\n" + body)
    c.write("job.sh", "#!/bin/bash\n" + (body if where == "batch" else
                                          "srun ./task.sh\n"))
    jid = c.sbatch("-o", "job.out", "job.sh")
    victim = read_pid(pidfile)
    # frozen in a freezer cgroup of its own, SIGKILL stays pending: the
    # process is still in the job's memory cgroup, and drover cannot end it
    ice = FREEZER / f"drover_test_unkillable_{os.getpid()}"
    ice.mkdir()
    try:
        (ice / "cgroup.procs").write_text(str(victim))
        (ice / "freezer.state").write_text("FROZEN")
        wait_for(lambda: (ice / "freezer.state").read_text().strip() == "FROZEN",
                 10, what="the freezer")
        go.touch()
        wait_for(lambda: "DRAIN" in c.show_node("n1")["State"], 30,
                 what="n1 to drain")
        shown = c.ok("scontrol", "show", "node", "n1")
        assert re.search(r"Reason=Kill task failed \[", shown), shown
        job = c.wait_done(jid, timeout=30)
        assert job["JobState"] == "COMPLETED", job
        who = f"job={jid}" if where == "batch" else f"step={jid}.0"
        assert re.search(rf"{who}: 1 process\(es\) still in \S+ 2s after "
                         r"SIGKILL: unkillable", c.log("n1")), c.log("n1")
    finally:
        (ice / "freezer.state").write_text("THAWED")
        wait_for(lambda: not pid_alive(victim), 10, what="the victim to die")
        wait_for(lambda: not (ice / "cgroup.procs").read_text().strip(), 10,
                 what="the test's freezer cgroup to empty")
        ice.rmdir()


def test_drover_up_no_cgroups_turns_them_off(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--no-cgroups"])
    assert re.search(r"^CgroupPlugin=disabled$", c.conf.read_text(), re.M)
    assert "CgroupPlugin=disabled: jobs run without cgroups" in c.log("n1")
    c.write("job.sh", "#!/bin/bash\ncat /proc/self/cgroup\n")
    jid = c.sbatch("-o", "job.out", "job.sh")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    assert "drover_" not in (c.work / "job.out").read_text()
