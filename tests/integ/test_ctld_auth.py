"""Client credentials at ctld, with real credentials from the cluster's authd:
a replayed one, one lifted onto another request, and an expired one (MACed
with the real key, so only the expiry is wrong) are all refused, logged, and
change nothing; so are a forged one, one signed with a wrong key, one issued
in the future and one that lives longer than cred_expire allows."""

import hashlib
import os
import re
import hmac
import json
import time

import wire
from test_bad_input import assert_still_serving, connect
from wire import canonical, frame, recv_frame


def digest(env):
    return hashlib.sha256(canonical({k: v for k, v in env.items() if k != "cred"})).hexdigest()


def authd_sign(c, dig):
    reply = wire.authd_sign(c.dir / "run" / "authd.sock", dig)
    assert reply and reply["rc"] == 0, reply
    return reply["body"]["cred"]


def send(c, env):
    s = connect(c)
    s.sendall(frame(json.dumps(env).encode()))
    reply = recv_frame(s)
    s.close()
    return reply


def hold_request(jid):
    return {"v": 1, "type": "job.hold", "id": 3, "body": {"job_ids": [jid]}}


def test_replayed_lifted_and_expired_credentials_are_refused(cluster):
    c = cluster
    jid = c.sbatch("-H", "--wrap", "true")
    c.ok("scontrol", "release", str(jid))
    c.wait_done(jid)
    pending = c.sbatch("-H", "--wrap", "true")
    jobs = c.job_ids()
    log_before = len(c.log())

    # A genuine request goes through once ...
    query = {"v": 1, "type": "job.query", "id": 2, "body": {}}
    query["cred"] = authd_sign(c, digest(query))
    assert send(c, query)["rc"] == 0
    # ... and is refused when replayed.
    assert send(c, query)["rc"] == 1007

    # A credential lifted from one request onto another.
    lifted = hold_request(pending)
    lifted["body"] = {"job_ids": [pending], "user": True}
    other = {"v": 1, "type": "job.query", "id": 9, "body": {"users": ["x"]}}
    lifted["cred"] = authd_sign(c, digest(other))
    assert send(c, lifted)["rc"] == 1007

    # An expired credential with a valid MAC (made with the real key).
    key = bytes.fromhex((c.dir / "drover.key").read_text().strip())
    env = {"v": 1, "type": "job.cancel", "id": 4, "body": {"job_ids": [pending]}}
    now = int(time.time())
    cred = {"uid": 0, "gid": 0, "host": "x", "issued": now - 900, "expires": now - 600,
            "nonce": "ab" * 32, "digest": digest(env)}
    cred["mac"] = hmac.new(key, canonical(cred), hashlib.sha256).hexdigest()
    env["cred"] = cred
    assert send(c, env)["rc"] == 1007

    assert_still_serving(c, jobs)
    assert c.state(pending) == "PENDING", "a refused request changed the job"
    log = c.log()[log_before:]
    assert "replayed" in log, log
    assert "expired" in log, log
    assert "digest" in log, log


def refusals(log):
    """ctld's refusal lines: {type: [reason, ...]} in order."""
    out = {}
    for m in re.finditer(r"refused (\S+) from 127\.0\.0\.1:\d+: (.+)", log):
        out.setdefault(m.group(1), []).append(m.group(2))
    return out


def mac_with(key, cred):
    cred = {k: v for k, v in cred.items() if k != "mac"}
    cred["mac"] = hmac.new(key, canonical(cred), hashlib.sha256).hexdigest()
    return cred


def test_forged_wrong_key_future_and_too_long_are_refused(cluster):
    """Each gets ctld's authentication error (rc 1007) and one line in its
    log naming why; none changes the job."""
    c = cluster
    pending = c.sbatch("--begin=now+3600", "--wrap", "true")
    jobs = c.job_ids()
    key = bytes.fromhex((c.dir / "drover.key").read_text().strip())
    log_before = len(c.log())
    now = int(time.time())

    def cancel(type_="job.cancel"):
        return {"v": 1, "type": type_, "id": 4, "body": {"job_ids": [pending]}}

    # Forged: authd's genuine credential with the uid changed afterwards.
    env = cancel()
    cred = dict(authd_sign(c, digest(env)), uid=12345)
    assert send(c, dict(env, cred=cred))["rc"] == 1007
    # Signed with a wrong key (times and digest all good).
    env = cancel("job.hold")
    cred = {"uid": os.getuid(), "gid": os.getgid(), "host": "x", "issued": now,
            "expires": now + 60, "nonce": os.urandom(32).hex(), "digest": digest(env)}
    assert send(c, dict(env, cred=mac_with(os.urandom(32), cred)))["rc"] == 1007
    # Issued further ahead than clock_skew (10 s by default) allows.
    env = cancel("job.release")
    cred = dict(cred, issued=now + 60, expires=now + 120, digest=digest(env),
                nonce=os.urandom(32).hex())
    assert send(c, dict(env, cred=mac_with(key, cred)))["rc"] == 1007
    # A lifetime past cred_expire (120 s) + clock_skew.
    env = cancel("job.requeue")
    cred = dict(cred, issued=now, expires=now + 3600, digest=digest(env),
                nonce=os.urandom(32).hex())
    assert send(c, dict(env, cred=mac_with(key, cred)))["rc"] == 1007

    assert_still_serving(c, jobs)
    job = c.show_job(pending)
    assert job["JobState"] == "PENDING" and job["Reason"] == "BeginTime", job
    assert refusals(c.log()[log_before:]) == {
        "job.cancel": ["bad MAC"],
        "job.hold": ["bad MAC"],
        "job.release": ["credential issued in the future"],
        "job.requeue": ["credential lifetime too long"],
    }


def signed(c, env):
    env["cred"] = authd_sign(c, digest(env))
    return env


def test_listing_rows_carry_only_what_was_asked(cluster):
    """The read path: compact rows of the named fields; "active" leaves out
    ended jobs in ctld, so squeue's default listing does not carry them."""
    c = cluster
    c.write("hold.sh", "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\n")
    done = c.sbatch("--wrap", "true")
    c.wait_done(done)
    running = c.sbatch("hold.sh")
    c.wait_state(running, "RUNNING")
    query = {"v": 1, "type": "job.query", "id": 5,
             "body": {"fields": ["job_id", "state", "nosuchfield"], "active": True}}
    reply = send(c, signed(c, query))
    assert reply["rc"] == 0, reply
    body = reply["body"]
    assert body["fields"] == ["job_id", "state", "nosuchfield"]
    assert body["rows"] == [[running, "RUNNING", None]]
    query = {"v": 1, "type": "job.query", "id": 6, "body": {"fields": ["job_id", "state"]}}
    rows = send(c, signed(c, query))["body"]["rows"]
    assert [done, "COMPLETED"] in rows and [running, "RUNNING"] in rows
    (c.work / "go").touch()


def test_a_users_filter_is_applied_by_ctld(cluster):
    """job.query's "users" selects in ctld itself (a user name that is no
    state name once matched every job, leaving the filtering to squeue)."""
    c = cluster
    jid = c.sbatch("-H", "--wrap", "true")
    owner = c.show_job(jid)["UserId"].split("(")[0]
    rows = lambda users: send(c, signed(c, {"v": 1, "type": "job.query", "id": 7, "body": {
        "fields": ["job_id"], "users": users}}))["body"]["rows"]
    assert rows([owner]) == [[jid]]
    assert rows(["nosuchuser"]) == []
    c.ok("scancel", str(jid))


def test_a_replayed_write_is_refused_after_a_restart(cluster):
    """The nonces of state-changing requests are stored with the turn's
    commit, so a captured hold replayed after a kill -9 and restart of ctld
    is still refused (and changes nothing); a read's nonce is not stored."""
    c = cluster
    jid = c.sbatch("--begin=now+3600", "--wrap", "true")
    hold = signed(c, hold_request(jid))
    assert send(c, hold)["rc"] == 0
    assert c.show_job(jid)["Reason"] == "JobHeldAdmin"  # root is an admin
    c.ok("scontrol", "release", str(jid))
    assert c.show_job(jid)["Reason"] == "BeginTime"
    assert send(c, dict(hold))["rc"] == 1007  # refused before the restart ...

    c.kill9("ctld")
    c.up()  # restarts only ctld
    assert send(c, dict(hold))["rc"] == 1007  # ... and after it
    assert c.show_job(jid)["Reason"] == "BeginTime", "a replayed hold changed the job"
    assert re.search(r"recovered \d+ credential nonces", c.log())
