"""ctld's time-driven work runs on timers keyed by due time, not on a tick,
and the timers survive a restart: an salloc allocation ends at its time
limit, a finished job leaves squeue after MinJobAge (and stays in sacct),
a --begin=now+N job starts at its begin time and not before; each also with
ctld killed (kill -9) and restarted before the due time, which then still
fires at the original time. Times come from the jobs' own fields."""

import re
import time

from conftest import wait_for


def stamp(text):
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def restart_ctld(c):
    c.kill9("ctld")
    c.up()  # restarts only ctld


def wait_registered(c, node, times):
    """Until ctld's log shows node's registration the given number of times."""
    pattern = re.compile(rf"node={node} registered from")
    wait_for(lambda: len(pattern.findall(c.log())) >= times, 30,
             what=f"{node} to register with ctld ({times})")


# -- an salloc allocation's time limit (ctld enforces it: no shepherd does) --

def salloc_no_shell(c, limit):
    rc, out, err = c.run("salloc", "-N1", "--no-shell", "-t", limit)
    assert rc == 0, (out, err)
    return int(re.search(r"Granted job allocation (\d+)", err).group(1))


def test_interactive_limit_ends_the_allocation_at_its_due_time(make_cluster):
    c = make_cluster(nodes=1)
    jid = salloc_no_shell(c, "0:3")
    assert c.state(jid) == "RUNNING"
    job = c.wait_done(jid, timeout=20)
    assert (job["JobState"], job["Reason"]) == ("TIMEOUT", "TimeLimit"), job
    ran = stamp(job["EndTime"]) - stamp(job["StartTime"])
    assert 3 <= ran <= 4, job


def test_interactive_limit_fires_at_its_due_time_across_a_restart(make_cluster):
    c = make_cluster(nodes=1)
    jid = salloc_no_shell(c, "0:8")
    start = stamp(c.show_job(jid)["StartTime"])
    restart_ctld(c)
    assert time.time() < start + 8, "the restart took longer than the limit"
    job = c.show_job(jid)
    assert job["JobState"] == "RUNNING", job
    job = c.wait_done(jid, timeout=30)
    assert (job["JobState"], job["Reason"]) == ("TIMEOUT", "TimeLimit"), job
    assert stamp(job["StartTime"]) == start
    assert 8 <= stamp(job["EndTime"]) - start <= 9, job


# -- MinJobAge: a finished record leaves ctld's memory, not the store -------

def listed(c, jid):
    return str(jid) in c.ok("squeue", "-h", "-t", "all", "-o", "%i").split()


def wait_gone(c, jid, timeout=30):
    """The time squeue first stops listing jid (polled every 0.1 s)."""
    wait_for(lambda: not listed(c, jid), timeout, interval=0.1,
             what=f"MinJobAge to drop job {jid}")
    return time.time()


def in_sacct(c, jid):
    return c.ok("sacct", "-X", "-n", "-j", str(jid), "-o", "state%12").split()


def test_finished_job_leaves_squeue_after_min_job_age(make_cluster):
    c = make_cluster(nodes=1, sets={"MinJobAge": "4"})
    jid = c.sbatch("--wrap", "true")
    end = stamp(c.wait_done(jid)["EndTime"])
    assert listed(c, jid)
    gone = wait_gone(c, jid)
    # EndTime is whole seconds: the purge is due within [end+4, end+5)
    assert end + 4 <= gone <= end + 7, (end, gone)
    assert in_sacct(c, jid) == ["COMPLETED"]


def test_min_job_age_counts_from_the_end_across_a_restart(make_cluster):
    c = make_cluster(nodes=1, sets={"MinJobAge": "10"})
    jid = c.sbatch("--wrap", "true")
    end = stamp(c.wait_done(jid)["EndTime"])
    restart_ctld(c)
    assert time.time() < end + 9, "the restart took longer than MinJobAge"
    assert listed(c, jid), "recovery must keep a job still within MinJobAge"
    gone = wait_gone(c, jid)
    assert end + 10 <= gone <= end + 13, (end, gone)
    assert in_sacct(c, jid) == ["COMPLETED"]


# -- --begin: the scheduler is woken at the begin time ----------------------

def test_begin_now_plus_3_starts_at_its_begin_time(make_cluster):
    c = make_cluster(nodes=1)
    jid = c.sbatch("--begin=now+3", "--wrap", "true")
    job = c.show_job(jid)
    assert (job["JobState"], job["Reason"]) == ("PENDING", "BeginTime"), job
    begin = stamp(job["EligibleTime"])
    job = c.wait_done(jid, timeout=20)
    assert job["JobState"] == "COMPLETED", job
    # not before its begin time, and then at once: nothing else wakes the
    # scheduler here
    assert begin <= stamp(job["StartTime"]) <= begin + 1, (begin, job)


def test_begin_time_fires_at_its_due_time_across_a_restart(make_cluster):
    c = make_cluster(nodes=1)
    jid = c.sbatch("--begin=now+12", "--wrap", "true")
    begin = stamp(c.show_job(jid)["EligibleTime"])
    restart_ctld(c)
    wait_registered(c, "n1", 2)  # the node is back before the begin time
    assert time.time() < begin - 1, "the restart took longer than the begin time"
    job = c.show_job(jid)
    assert (job["JobState"], job["Reason"]) == ("PENDING", "BeginTime"), job
    assert stamp(job["EligibleTime"]) == begin
    job = c.wait_done(jid, timeout=30)
    assert job["JobState"] == "COMPLETED", job
    assert begin <= stamp(job["StartTime"]) <= begin + 1, (begin, job)
