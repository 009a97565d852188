"""Holds, begin times, deadlines and MinJobAge as Slurm 22.05 has them, on a
real local cluster: -H and scontrol hold/uhold/release (JobHeldUser,
JobHeldAdmin, priority 0, who may release), --begin in Slurm's time forms
(reason BeginTime, EligibleTime= and StartTime= at the begin time),
scontrol update StartTime=, --deadline ending a pending job DEADLINE,
refusals with Slurm's exact text, ctld kill -9 in between, and a finished
job visible for MinJobAge and then only in sacct."""

import json
import time

from conftest import wait_for


def stamp(text):
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def test_begin_now_plus_3_waits_then_runs(make_cluster):
    c = make_cluster(nodes=1)
    t0 = int(time.time())
    jid = c.sbatch("--begin=now+3", "--wrap", "true")
    job = c.show_job(jid)
    assert (job["JobState"], job["Reason"]) == ("PENDING", "BeginTime"), job
    begin = stamp(job["EligibleTime"])
    assert t0 + 3 <= begin <= t0 + 5, (t0, job["EligibleTime"])
    assert job["StartTime"] == job["EligibleTime"]
    assert job["LastSchedEval"] == job["SubmitTime"]
    out = c.ok("squeue", "-h", "-j", str(jid), "-o", "%T %r %S %e")
    assert out == f"PENDING BeginTime {job['EligibleTime']} NONE\n"
    # held with a begin time: Slurm shows both times, and the end a limit on
    held = c.sbatch("-H", "-t", "5", "--begin=now+600", "--wrap", "true")
    job = c.show_job(held)
    assert job["EligibleTime"] == job["StartTime"] != "Unknown"
    assert stamp(job["EndTime"]) == stamp(job["StartTime"]) + 300
    out = c.ok("squeue", "-h", "-j", str(held), "-o", "%r %S %e")
    assert out == f"JobHeldUser {job['StartTime']} {job['EndTime']}\n"
    done = c.wait_done(jid, timeout=20)
    assert done["JobState"] == "COMPLETED"
    assert stamp(done["StartTime"]) >= begin


def test_begin_forms_and_the_past(make_cluster):
    c = make_cluster(nodes=1)
    # a begin time in the past is taken (Slurm runs the job now)
    past = c.sbatch("--begin=2020-01-01T10:00", "--wrap", "true")
    assert c.wait_done(past)["JobState"] == "COMPLETED"
    now = int(time.time())
    forms = {"now+1hour": (now + 3600, now + 3605),
             "now+60": (now + 60, now + 65),
             "tomorrow": None, "teatime": None, "16:00": None,
             "2099-12-01T10:00": (stamp("2099-12-01T10:00:00"),) * 2}
    for text, window in forms.items():
        jid = c.sbatch("-H", f"--begin={text}", "--wrap", "true")
        begin = stamp(c.show_job(jid)["StartTime"])
        assert begin > now, (text, begin)
        if window:
            assert window[0] - 1 <= begin <= window[1], (text, iso(begin))
        if text in ("teatime", "16:00"):  # a time of day already gone: tomorrow
            assert time.localtime(begin)[3:6] == (16, 0, 0) and begin - now <= 86400
        if text == "tomorrow":
            assert time.localtime(begin)[3:6] == (0, 0, 0) and begin - now <= 86400


def test_bad_times_are_refused_with_slurms_text(make_cluster):
    c = make_cluster(nodes=1)
    before = c.job_ids()
    cases = [("--begin=garbage", "Invalid time specification (pos=0): garbage\n"
              "sbatch: error: Invalid --begin specification\n"),
             ("--begin=now+3x", "Invalid time specification (pos=4): now+3x\n"
              "sbatch: error: Invalid --begin specification\n"),
             ("--begin=25:00", "Invalid time specification (pos=0): 25:00\n"
              "sbatch: error: Invalid --begin specification\n"),
             ("--begin=2026-13-01", "Invalid time specification (pos=5): 2026-13-01\n"
              "sbatch: error: Invalid --begin specification\n"),
             ("--deadline=garbage", "Invalid time specification (pos=0): garbage\n"
              "sbatch: error: Invalid --deadline specification\n"),
             ("--kill-on-invalid-dep=maybe",
              "sbatch: error: Invalid --kill-on-invalid-dep specification\n")]
    for opt, text in cases:
        rc, out, err = c.run("sbatch", opt, "--wrap", "true")
        assert (rc, out, err) == (255, "", text), opt
    assert c.job_ids() == before
    jid = c.sbatch("-H", "--wrap", "true")
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}", "StartTime=garbage")
    assert (rc, out, err) == (1, "", "Invalid time specification (pos=0): garbage\n"
                              "No changes specified\n")
    job = c.show_job(jid)
    assert (job["Reason"], job["EligibleTime"]) == ("JobHeldUser", "Unknown")


def test_update_start_time_and_restart_keep_it(make_cluster):
    c = make_cluster(nodes=1)
    jid = c.sbatch("-H", "--wrap", "true")
    c.ok("scontrol", "update", f"JobId={jid}", "StartTime=now+1hour")
    job = c.show_job(jid)
    # held still, yet Slurm shows the new time at once
    assert job["Reason"] == "JobHeldUser"
    later = stamp(job["EligibleTime"])
    assert abs(later - (time.time() + 3600)) < 10
    c.ok("scontrol", "release", str(jid))
    wait_for(lambda: c.show_job(jid)["Reason"] == "BeginTime", 10, what="BeginTime")
    c.kill9("ctld")
    c.up()
    job = c.show_job(jid)
    assert (job["Reason"], stamp(job["StartTime"])) == ("BeginTime", later)
    c.ok("scontrol", "update", f"JobId={jid}", "StartTime=now")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}", "StartTime=now+1hour")
    assert (rc, err) == (1, f"Job has already finished for job {jid}\n")


def test_deadline_ends_a_pending_job_and_trims_a_running_one(make_cluster):
    c = make_cluster(nodes=1)
    # no way to finish in time: UNLIMITED counts as one minute, -t 1 as 60 s
    soon = c.sbatch("--deadline=now+30", "--wrap", "true")
    short = c.sbatch("-t", "1", "--deadline=now+30", "--wrap", "true")
    for jid in (soon, short):
        job = c.wait_done(jid)
        assert (job["JobState"], job["Reason"], job["ExitCode"]) == (
            "DEADLINE", "DeadLine", "0:1"), job
        assert job["StartTime"] == job["EndTime"]
    out = c.ok("squeue", "-h", "-t", "all", "-j", str(soon), "-o", "%T %r")
    assert out == "DEADLINE DeadLine\n"
    # a held job past its deadline ends at its release
    held = c.sbatch("-H", "--deadline=now+2", "--wrap", "true")
    deadline = c.show_job(held)["Deadline"]
    assert abs(stamp(deadline) - (time.time() + 2)) < 3
    jobs = json.loads(c.ok("squeue", "--json", "-j", str(held)))["jobs"]
    assert jobs[0]["deadline"]["number"] == stamp(deadline)
    c.kill9("ctld")
    c.up()
    assert c.show_job(held)["Deadline"] == deadline
    wait_for(lambda: time.time() > stamp(deadline) + 1, 10, what="the deadline")
    assert c.state(held) == "PENDING"
    c.ok("scontrol", "release", str(held))
    assert c.wait_done(held)["JobState"] == "DEADLINE"
    # room to finish: it runs, its UNLIMITED limit trimmed to the deadline
    fits = c.sbatch("--deadline=now+600", "--wrap", "sleep 1")
    job = c.wait_done(fits)
    assert job["JobState"] == "COMPLETED"
    assert job["TimeLimit"] in ("00:09:00", "00:10:00"), job["TimeLimit"]
    assert job["TimeMin"] == "00:01:00"  # Slurm's for UNLIMITED with a deadline
    assert c.show_job(short)["TimeMin"] == "N/A"
    out = c.ok("sacct", "-X", "-n", "-j", str(soon), "-o", "state%12")
    assert out.split() == ["DEADLINE"]


def test_hold_uhold_release(make_cluster):
    c = make_cluster(nodes=1)
    jid = c.sbatch("-H", "--wrap", "true")
    job = c.show_job(jid)
    assert (job["Reason"], job["Priority"], job["EligibleTime"]) == (
        "JobHeldUser", "0", "Unknown")
    c.ok("scontrol", "hold", str(jid))  # by an admin: an admin hold
    assert c.show_job(jid)["Reason"] == "JobHeldAdmin"
    out = c.ok("squeue", "-h", "-j", str(jid), "-o", "%r %Q")
    assert out == "JobHeldAdmin 0\n"
    c.ok("scontrol", "uhold", str(jid))
    assert c.show_job(jid)["Reason"] == "JobHeldUser"
    c.kill9("ctld")
    c.up()
    assert (c.show_job(jid)["Reason"], c.show_job(jid)["Priority"]) == ("JobHeldUser", "0")
    t0 = int(time.time())
    c.ok("scontrol", "release", str(jid))
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED" and int(job["Priority"]) > 0
    assert stamp(job["EligibleTime"]) >= t0  # eligible from the release
    # a finished job: both of Slurm's lines, exit 1
    for cmd in ("hold", "uhold", "release"):
        rc, out, err = c.run("scontrol", cmd, str(jid))
        assert (rc, out, err) == (1, "", f"Job has already finished for job {jid}\n"
                                  "slurm_suspend error: Job has already finished\n")
    rc, out, err = c.run("scontrol", "hold", "999999")
    assert (rc, err) == (1, "Invalid job id specified for job 999999\n"
                         "slurm_suspend error: Invalid job id specified\n")
    # a running job: accepted, nothing changes
    c.write("gate.sh", "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\n")
    run = c.sbatch("gate.sh")
    c.wait_state(run, "RUNNING")
    assert c.run("scontrol", "hold", str(run))[0] == 0
    assert c.show_job(run)["JobState"] == "RUNNING"
    (c.work / "go").touch()
    c.wait_done(run)


def test_admin_hold_is_not_the_users_to_release(make_cluster):
    """The cluster's user is Slurm's SlurmUser, an admin, and in local mode
    the only one who may submit; another user can neither release nor
    downgrade (uhold) the hold: not the job's owner, Slurm's "Invalid user
    id". (The owner who is no operator is refused too, with "Access/permission
    denied": test_permissions.py, where jobs run as their users.)"""
    c = make_cluster(nodes=1)
    jid = c.sbatch("-H", "--wrap", "true")
    c.ok("scontrol", "hold", str(jid))
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    for cmd in ("release", "uhold"):
        rc, out, err = c.run(*nobody, c.bin / "scontrol", cmd, str(jid))
        assert (rc, err) == (1, f"Invalid user id for job {jid}\n"
                             "slurm_suspend error: Invalid user id\n"), cmd
    assert c.show_job(jid)["Reason"] == "JobHeldAdmin"
    c.ok("scontrol", "release", str(jid))
    c.wait_done(jid)


def test_min_job_age_keeps_a_finished_job_then_only_sacct(make_cluster):
    c = make_cluster(nodes=1, sets={"MinJobAge": "6"})
    jid = c.sbatch("--wrap", "true")
    end = stamp(c.wait_done(jid)["EndTime"])
    shown = lambda: c.run("scontrol", "show", "job", str(jid))[0] == 0
    listed = lambda: c.ok("squeue", "-h", "-t", "all", "-o", "%i").split() == [str(jid)]
    # visible for MinJobAge...
    while time.time() < end + 4:
        assert shown() and listed()
        time.sleep(0.5)
    # ...then forgotten by ctld, known to sacct, and no dependency target
    wait_for(lambda: not shown(), 20, what="MinJobAge to drop the job")
    assert time.time() >= end + 5
    assert not listed()
    assert c.ok("sacct", "-X", "-n", "-j", str(jid), "-o", "state%12").split() == [
        "COMPLETED"]
    rc, out, err = c.run("scontrol", "show", "job", str(jid))
    assert (rc, err) == (1, "slurm_load_jobs error: Invalid job id specified\n")
    rc, out, err = c.run("sbatch", f"--dependency=afternotok:{jid}", "--wrap", "true")
    assert (rc, err) == (1, "sbatch: error: Batch job submission failed: "
                         "Job dependency problem\n")
