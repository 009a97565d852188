"""Identity comes from the credential only (issue 10, item 4).

A job.submit body that claims another user (an old client, or a forged
one) is believed in nothing about who the job is: its user name is what
ctld resolves from the credential's uid, and so are squeue's, sacct's and
scontrol's views and the job's own environment. The launch spec carries the
supplementary groups ctld resolved (Slurm's send_gids), which the shepherd
sets as given."""

import json
import os
import pwd

from conftest import wait_for
from test_bad_input import SUBMIT
from test_ctld_auth import send, signed


def real_and_claimed():
    real = pwd.getpwuid(os.geteuid()).pw_name
    claimed = "nobody" if real != "nobody" else "root"
    return real, claimed


def test_a_claimed_user_is_ignored(cluster):
    c = cluster
    real, claimed = real_and_claimed()
    out = c.work / "env.out"
    body = dict(SUBMIT, user=claimed, uid=65534, gid=65534, name="claimed",
                workdir=str(c.work), submit_dir=str(c.work),
                script="#!/bin/sh\necho \"user=$SLURM_JOB_USER uid=$SLURM_JOB_UID "
                       f"id=$(id -u)\" > {out}\nsleep 30\n")
    reply = send(c, signed(c, {"v": 1, "type": "job.submit", "id": 11, "body": body}))
    assert reply["rc"] == 0, reply
    jid = reply["body"]["job_id"]
    c.wait_state(jid, "RUNNING")

    uid = os.geteuid()
    assert c.show_job(jid)["UserId"] == f"{real}({uid})"
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%u").strip() == real
    assert c.ok("sacct", "-n", "-X", "-j", str(jid), "-o", "User%30").strip() == real

    # What ctld handed the node: the real user and the groups it resolved.
    spec = json.loads(next(c.dir.glob(f"spool/*/job.{jid}*/spec.json")).read_text())
    assert spec["user"] == real and spec["uid"] == uid
    assert spec["gid"] == os.getegid()
    assert sorted(spec["gids"]) == sorted(set(os.getgrouplist(real, spec["gid"])))

    text = wait_for(lambda: out.exists() and out.read_text(), 20, what="the job's output")
    assert text.strip() == f"user={real} uid={uid} id={uid}"
    c.ok("scancel", str(jid))
