"""The accounting store behind sacct (acct.query), spoken to in the raw
protocol so that these tests depend on ctld alone: finished jobs outlive
MinJobAge and a ctld crash in the store, filters select by id, user, name,
partition, account, state and time window, memory and history merge in id
order without duplicates, and PurgeJobAfter ends a job's history."""

import time

from conftest import wait_for
from test_ctld_auth import send, signed

_ids = iter(range(100, 10**6))


def acct(c, **body):
    reply = send(c, signed(c, {"v": 1, "type": "acct.query", "id": next(_ids),
                               "body": body}))
    assert reply["rc"] == 0, reply
    return reply["body"]["jobs"]


def ids(jobs):
    return [j["job_id"] for j in jobs]


def forgotten_by_scontrol(c, jid):
    rc, out, err = c.run("scontrol", "show", "job", str(jid))
    return rc == 1 and "Invalid job id" in err


def test_history_outlives_min_job_age_and_a_crash(make_cluster):
    c = make_cluster(sets={"MinJobAge": "1"})
    ok = c.sbatch("-J", "alpha", "--wrap", "true")
    bad = c.sbatch("-J", "beta", "-A", "proj", "--wrap", "exit 3")
    # with MinJobAge=1 a job may be gone from memory by the time we look
    ended = lambda j: acct(c, job_ids=[j])[0]["state"] in ("COMPLETED", "FAILED")
    wait_for(lambda: ended(ok) and ended(bad), 30, what="both jobs to end")
    held = c.sbatch("-J", "alpha", "-H", "--wrap", "true")
    wait_for(lambda: forgotten_by_scontrol(c, ok) and forgotten_by_scontrol(c, bad),
             30, what="MinJobAge to purge the finished jobs from memory")

    jobs = acct(c, job_ids=[ok, bad, held])
    assert ids(jobs) == [ok, bad, held]  # two from history, one from memory
    done, failed, pending = jobs
    assert (done["state"], done["exit_code"]) == ("COMPLETED", 0)
    assert (failed["state"], failed["exit_code"], failed["account"]) == ("FAILED", 3, "proj")
    assert pending["state"] == "PENDING"
    assert done["req_tres"] == "billing=1,cpu=1,mem=" + done["req_tres"].split("mem=")[1]
    assert done["alloc_tres"].startswith("billing=1,cpu=1,mem=") and done["alloc_tres"].endswith(",node=1")
    assert pending["alloc_tres"] == ""
    assert "req" not in done and "alloc" not in done, "store-only members leaked"

    # filters: each selects what it names, in memory and in history alike
    assert ids(acct(c, names=["alpha"])) == [ok, held]
    # in any case, as Slurm's database compares them
    assert ids(acct(c, names=["ALPHA"])) == [ok, held]
    assert ids(acct(c, accounts=["Proj"])) == [bad]
    assert ids(acct(c, states=["FAILED", "PENDING"])) == [bad, held]
    assert ids(acct(c, uids=[done["uid"]])) == [ok, bad, held]
    assert acct(c, uids=[done["uid"] + 12345]) == []
    assert ids(acct(c, partitions=[done["partition"]], job_ids=[bad])) == [bad]
    # the window: eligible before its end, not ended before its start; a held
    # job was never eligible
    now = int(time.time())
    assert ids(acct(c, start=now - 3600, end=now + 5)) == [ok, bad]
    assert acct(c, start=now + 3600) == []
    assert acct(c, start=1, end=done["submit_time"] - 10) == []

    # a crash of ctld loses nothing acknowledged
    c.kill9("ctld")
    c.up()  # restarts only ctld
    assert ids(acct(c, job_ids=[ok, bad, held, 999999])) == [ok, bad, held]


def test_purge_job_after_ends_the_history(make_cluster):
    c = make_cluster(sets={"MinJobAge": "1", "PurgeJobAfter": "5seconds"})
    jid = c.sbatch("--wrap", "true")
    # with MinJobAge=1 the job may leave memory before scontrol looks
    wait_for(lambda: [j["state"] for j in acct(c, job_ids=[jid])] == ["COMPLETED"], 30,
             what="the job to end")
    wait_for(lambda: acct(c, job_ids=[jid]) == [], 30,
             what="PurgeJobAfter to remove the job from the accounting store")


def test_bad_purge_job_after_is_refused_with_the_line(make_cluster):
    c = make_cluster(sets={"PurgeJobAfter": "12fortnights"}, start=False)
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1", "--set",
                            "PurgeJobAfter=12fortnights")
    assert rc != 0
    assert "PurgeJobAfter: '12fortnights' is not N[months|days|hours|minutes|seconds]" in out + err


def test_holds_show_as_slurm_shows_them(make_cluster):
    """Slurm holds a job by its priority (0 while held) and a job cancelled
    while pending keeps the reason it waited for; the real priority survives
    a ctld restart for the release."""
    c = make_cluster(nodes=1)
    held = c.sbatch("-H", "--wrap", "true")
    dropped = c.sbatch("-H", "--wrap", "true")
    assert c.show_job(held)["Priority"] == "0"
    c.ok("scancel", str(dropped))
    c.wait_state(dropped, "CANCELLED")
    gone = acct(c, job_ids=[dropped])[0]
    assert (gone["reason"], gone["priority"]) == ("JobHeldUser", 0)
    assert c.show_job(dropped)["Reason"] == "JobHeldUser"
    c.kill9("ctld")
    c.up()  # restarts only ctld
    c.ok("scontrol", "release", str(held))
    assert int(c.show_job(held)["Priority"]) > 1
    c.wait_done(held)
