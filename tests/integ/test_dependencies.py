"""--dependency as Slurm 22.05 has it, on a real local cluster: the whole
grammar (after[+min], afterany, afterok, afternotok, singleton, ',' and '?'
lists), the Dependency= text scontrol and squeue show ("(unfulfilled)",
"(failed)", met entries dropped), DependencyNeverSatisfied and the
kill_invalid_depend / --kill-on-invalid-dep cancel, scontrol update
Dependency=, refusals with Slurm's text, and a ctld kill -9 in between.
Every expectation here was checked against a real Slurm 22.05."""

import time

from conftest import wait_for


def gate(c, name="go"):
    """A script that runs until the file `name` appears in the work dir."""
    return c.write(f"wait-{name}.sh",
                   f"#!/bin/sh\nwhile [ ! -e {name} ]; do sleep 0.1; done\n")


def dep(c, jid):
    return c.show_job(jid)["Dependency"]


def reason(c, jid):
    return c.show_job(jid)["Reason"]


def test_four_stage_chain_with_a_failure_never_satisfied(make_cluster):
    c = make_cluster(nodes=1)
    gate(c)
    a = c.sbatch("wait-go.sh")
    b = c.sbatch(f"--dependency=afterok:{a}", "--wrap", "exit 3")
    cc = c.sbatch(f"--dependency=afterok:{b}", "--wrap", "true")
    d = c.sbatch(f"--dependency=afterok:{cc}", "--wrap", "true")
    assert dep(c, b) == f"afterok:{a}(unfulfilled)"
    assert reason(c, b) == "Dependency"
    out = c.ok("squeue", "-h", "-j", str(d), "-o", "%i %T %r %E")
    assert out == f"{d} PENDING Dependency afterok:{cc}(unfulfilled)\n"
    (c.work / "go").touch()
    assert c.wait_done(a)["JobState"] == "COMPLETED"
    assert c.wait_done(b)["JobState"] == "FAILED"
    wait_for(lambda: reason(c, cc) == "DependencyNeverSatisfied", 10,
             what="DependencyNeverSatisfied")
    job = c.show_job(cc)
    assert job["JobState"] == "PENDING" and job["Dependency"] == f"afterok:{b}(failed)"
    assert job["EligibleTime"] == "Unknown"
    # the stage after it waits on a job that is still pending
    job = c.show_job(d)
    assert (job["Reason"], job["Dependency"]) == ("Dependency", f"afterok:{cc}(unfulfilled)")
    # a met dependency leaves the list: b ran with none left
    assert c.show_job(b)["Dependency"] == "(null)"
    # and all of it survives a ctld kill -9
    c.kill9("ctld")
    c.up()
    wait_for(lambda: reason(c, cc) == "DependencyNeverSatisfied", 15, what="recovered")
    assert dep(c, cc) == f"afterok:{b}(failed)"
    assert dep(c, d) == f"afterok:{cc}(unfulfilled)"
    c.ok("scancel", str(cc))
    wait_for(lambda: reason(c, d) == "DependencyNeverSatisfied", 10, what="d never")
    assert dep(c, d) == f"afterok:{cc}(failed)"


def test_kill_invalid_depend_cancels_the_rest_of_the_chain(make_cluster):
    c = make_cluster(nodes=1, sets={"SchedulerParameters": "kill_invalid_depend"})
    a = c.sbatch("--wrap", "exit 1")
    b = c.sbatch(f"--dependency=afterok:{a}", "--wrap", "true")
    cc = c.sbatch(f"--dependency=afterok:{b}", "--wrap", "true")
    keep = c.sbatch("--kill-on-invalid-dep=no", f"--dependency=afterok:{a}",
                    "--wrap", "true")
    for jid in (b, cc):
        job = c.wait_done(jid)
        assert (job["JobState"], job["Reason"]) == ("CANCELLED",
                                                    "DependencyNeverSatisfied"), job
    assert c.show_job(b)["Dependency"] == f"afterok:{a}(failed)"
    assert c.show_job(b)["EligibleTime"] == "Unknown"
    # --kill-on-invalid-dep=no wins over the cluster's setting
    wait_for(lambda: reason(c, keep) == "DependencyNeverSatisfied", 10, what="kept")
    assert c.state(keep) == "PENDING"
    # sacct knows why: CANCELLED, never by a user
    out = c.ok("sacct", "-X", "-n", "-j", str(b), "-o", "state%20")
    assert out.split() == ["CANCELLED"]


def test_kill_on_invalid_dep_yes_without_the_scheduler_parameter(make_cluster):
    c = make_cluster(nodes=1)
    a = c.sbatch("--wrap", "true")
    b = c.sbatch("--kill-on-invalid-dep=yes", f"--dependency=afternotok:{a}",
                 "--wrap", "true")
    job = c.wait_done(b)
    assert (job["JobState"], job["Reason"]) == ("CANCELLED", "DependencyNeverSatisfied")
    assert job["Dependency"] == f"afternotok:{a}(failed)"


def test_afterany_afternotok_and_any_of_lists(make_cluster):
    c = make_cluster(nodes=1)
    gate(c)
    fails = c.sbatch("--wrap", "exit 2")
    ok = c.sbatch("wait-go.sh")
    anyj = c.sbatch(f"--dependency=afterany:{fails}", "--wrap", "true")
    notok = c.sbatch(f"--dependency=afternotok:{fails}", "--wrap", "true")
    notok_ok = c.sbatch(f"--dependency=afternotok:{ok}:{fails}", "--wrap", "true")
    either = c.sbatch(f"--dependency=afterok:{fails}?afterok:{ok}", "--wrap", "true")
    both = c.sbatch(f"--dependency=afterok:{ok},afterany:{fails}", "--wrap", "true")
    assert c.wait_done(anyj)["JobState"] == "COMPLETED"
    assert c.wait_done(notok)["JobState"] == "COMPLETED"
    # one failed entry does not end an any-of list while another may be met
    wait_for(lambda: dep(c, either) == f"afterok:{fails}(failed)?afterok:{ok}(unfulfilled)",
             10, what="any-of list")
    assert reason(c, either) == "Dependency"
    wait_for(lambda: dep(c, both) == f"afterok:{ok}(unfulfilled)", 10, what="met dropped")
    assert dep(c, notok_ok) == f"afternotok:{ok}(unfulfilled)"
    (c.work / "go").touch()
    assert c.wait_done(either)["JobState"] == "COMPLETED"
    assert c.show_job(either)["Dependency"] == "(null)"
    assert c.wait_done(both)["JobState"] == "COMPLETED"
    wait_for(lambda: reason(c, notok_ok) == "DependencyNeverSatisfied", 10, what="never")
    assert dep(c, notok_ok) == f"afternotok:{ok}(failed)"


def test_a_cancelled_target(make_cluster):
    """Cancelled while pending: afternotok, afterany and after are met,
    afterok never is (checked on Slurm 22.05)."""
    c = make_cluster(nodes=1)
    gone = c.sbatch("-H", "--wrap", "true")
    c.ok("scancel", str(gone))
    c.wait_done(gone)
    met = [c.sbatch(f"--dependency={kind}:{gone}", "--wrap", "true")
           for kind in ("afternotok", "afterany", "after")]
    never = c.sbatch(f"--dependency=afterok:{gone}", "--wrap", "true")
    for jid in met:
        assert c.wait_done(jid)["JobState"] == "COMPLETED"
    wait_for(lambda: reason(c, never) == "DependencyNeverSatisfied", 10, what="never")
    assert dep(c, never) == f"afterok:{gone}(failed)"


def test_after_waits_for_the_start_plus_minutes(make_cluster):
    c = make_cluster(nodes=1)
    gate(c)
    first = c.sbatch("wait-go.sh")
    started = c.wait_state(first, "RUNNING")
    plain = c.sbatch(f"--dependency=after:{first}", "--wrap", "true")
    later = c.sbatch(f"--dependency=after:{first}+1", "--wrap", "true")
    # after: the target started, so it runs while the target still runs
    assert c.wait_done(plain)["JobState"] == "COMPLETED"
    assert c.state(first) == "RUNNING"
    assert dep(c, later) == f"after:{first}+1(unfulfilled)"
    job = c.wait_done(later, timeout=90)
    t0 = time.mktime(time.strptime(started["StartTime"], "%Y-%m-%dT%H:%M:%S"))
    t1 = time.mktime(time.strptime(job["StartTime"], "%Y-%m-%dT%H:%M:%S"))
    assert t1 - t0 >= 60, (started["StartTime"], job["StartTime"])
    (c.work / "go").touch()


def test_singleton_runs_one_job_of_a_name_at_a_time(make_cluster):
    c = make_cluster(nodes=1)
    gate(c, "one")
    gate(c, "two")
    # a pending job of the same name without singleton holds them back too
    held = c.sbatch("-J", "solo", "-H", "--wrap", "true")
    a = c.sbatch("-J", "solo", "--dependency=singleton", "wait-one.sh")
    b = c.sbatch("-J", "solo", "--dependency=singleton", "wait-two.sh")
    other = c.sbatch("-J", "other", "--dependency=singleton", "--wrap", "true")
    assert c.wait_done(other)["JobState"] == "COMPLETED"
    assert (reason(c, a), dep(c, a)) == ("Dependency", "singleton(unfulfilled)")
    c.ok("scancel", str(held))
    c.wait_state(a, "RUNNING")
    job = c.show_job(b)
    assert (job["JobState"], job["Reason"], job["Dependency"]) == (
        "PENDING", "Dependency", "singleton(unfulfilled)")
    (c.work / "one").touch()
    c.wait_done(a)
    c.wait_state(b, "RUNNING")
    (c.work / "two").touch()
    assert c.wait_done(b)["JobState"] == "COMPLETED"


def test_bad_dependencies_and_unknown_jobs_are_refused(make_cluster):
    c = make_cluster(nodes=1)
    before = c.job_ids()
    for text in ["afterok:", "bogus:1", "afterok:abc", "123:124", "after:1+x",
                 "singleton:1", "afterok:0", "afterok:1,", "afterok:1?"]:
        rc, out, err = c.run("sbatch", f"--dependency={text}", "--wrap", "true")
        assert (rc, out) == (1, ""), (text, rc, out, err)
        assert err == "sbatch: error: Batch job submission failed: Job dependency problem\n"
    rc, out, err = c.run("sbatch", "--dependency=expand:1", "--wrap", "true")
    assert (rc, err) == (1, "sbatch: error: Batch job submission failed: Requested "
                         "operation not supported on this system\n")
    assert c.job_ids() == before
    # a job ctld does not hold is refused, as current Slurm does (22.05
    # took it as gone)
    rc, out, err = c.run("sbatch", "--dependency=afterok:999999", "--wrap", "true")
    assert (rc, out, err) == (1, "", "sbatch: error: Batch job submission failed: "
                              "Job dependency problem\n")
    assert c.job_ids() == before
    # the job's environment has the text as given, as Slurm's
    first = c.sbatch("--wrap", "true")
    held = c.sbatch("-H", f"--dependency=afterany:{first}", "--wrap",
                    "printenv SLURM_JOB_DEPENDENCY")
    c.wait_done(first)
    c.ok("scontrol", "release", str(held))
    job = c.wait_done(held)
    assert (job["JobState"], job["Dependency"]) == ("COMPLETED", "(null)")
    assert (c.work / f"slurm-{held}.out").read_text() == f"afterany:{first}\n"


def test_update_dependency_sets_clears_and_refuses(make_cluster):
    c = make_cluster(nodes=1)
    gate(c)
    first = c.sbatch("wait-go.sh")
    jid = c.sbatch(f"--dependency=afterok:{first}", "--wrap", "true")
    c.ok("scontrol", "update", f"JobId={jid}", f"Dependency=afternotok:{first}")
    assert dep(c, jid) == f"afternotok:{first}(unfulfilled)"
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}", "Dependency=bogus:1")
    assert (rc, out, err) == (1, "", f"Job dependency problem for job {jid}\n")
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}",
                         f"Dependency=afterok:{jid}")
    assert (rc, err) == (1, f"Job dependency problem for job {jid}\n")
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}", "Dependency=afterok:999999")
    assert (rc, err) == (1, f"Job dependency problem for job {jid}\n")
    # a cycle through another job: Slurm's own message
    waiter = c.sbatch("-H", f"--dependency=afterok:{jid}", "--wrap", "true")
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}",
                         f"Dependency=afterany:{first}?afterok:{waiter}")
    assert (rc, err) == (1, f"Circular job dependency for job {jid}\n")
    assert dep(c, jid) == f"afternotok:{first}(unfulfilled)"
    c.ok("scancel", str(waiter))
    c.kill9("ctld")
    c.up()
    assert dep(c, jid) == f"afternotok:{first}(unfulfilled)"
    c.ok("scontrol", "update", f"JobId={jid}", "Dependency=")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    rc, out, err = c.run("scontrol", "update", f"JobId={first}", "Dependency=afterok:1")
    assert (rc, err) == (1, f"Job is no longer pending execution for job {first}\n")
    (c.work / "go").touch()
    c.wait_done(first)
