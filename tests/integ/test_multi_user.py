"""Cluster mode: jobs run as their users (issue 13, item 1).

A cluster brought up by root (SlurmdUser unset, so root) takes jobs from
any local user and runs each as its submitter: uid, primary gid and the
supplementary groups ctld resolved, set before anything of the job runs.
Output files are opened as the user, so a path the user could not write
outside Drover fails the same way inside it, symlinks included; the
working directory is entered as the user; daemons' variables do not leak
into the job. A user's body claiming to be someone else changes nothing.
A cluster brought up by an ordinary user (SlurmdUser is that user) still
takes that user's jobs only. Needs root."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import wait_for
from test_bad_input import SUBMIT

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


def user_dir(c, u):
    d = c.dir / "home" / u.name
    d.mkdir(parents=True)
    os.chown(d, u.uid, u.gid)
    return d


def as_user(c, u, *cmd, cwd):
    return c.run(*u.prefix, *cmd, cwd=cwd)


def sbatch_as(c, u, cwd, *args):
    rc, out, err = as_user(c, u, "sbatch", "--parsable", *args, cwd=cwd)
    assert rc == 0, f"sbatch as {u.name}: rc={rc} {err}"
    return int(out.strip().split(";")[0])


IDENTITY = ("#!/bin/sh\n"
            "echo uid=$(id -u) gid=$(id -g) groups=$(id -G | tr ' ' ,) "
            "user=$SLURM_JOB_USER pwd=$(pwd) conf=${DROVER_CONF:-unset} "
            "home=$HOME mark=${DRV_DAEMON_MARK:-unset}\n")


def identity(path):
    return dict(kv.split("=", 1) for kv in path.read_text().split())


def test_each_users_job_runs_as_that_user(make_cluster, test_users):
    c = make_cluster(nodes=2, start=False)
    c.env["DRV_DAEMON_MARK"] = "daemons-only"  # in every daemon's environment
    c.up()
    del c.env["DRV_DAEMON_MARK"]
    for u in test_users:
        d = user_dir(c, u)
        jid = sbatch_as(c, u, d, "-o", "id.out", "--wrap", IDENTITY.split("\n", 1)[1])
        c.wait_done(jid)
        assert c.show_job(jid)["JobState"] == "COMPLETED"
        got = identity(d / "id.out")
        assert (int(got["uid"]), int(got["gid"])) == (u.uid, u.gid)
        assert sorted(int(g) for g in got["groups"].split(",")) == u.groups
        assert got["user"] == u.name and got["pwd"] == str(d)
        assert got["mark"] == "unset"  # nothing of the daemons' environment
        assert (d / "id.out").stat().st_uid == u.uid
        assert c.show_job(jid)["UserId"] == f"{u.name}({u.uid})"
        assert c.ok("squeue", "-h", "-t", "all", "-j", str(jid), "-o", "%u").strip() == u.name
    # The root cluster's own jobs still run as root.
    jid = c.sbatch("-o", str(c.work / "root.out"), "--wrap", "id -u")
    c.wait_done(jid)
    assert (c.work / "root.out").read_text().strip() == "0"


def test_srun_and_salloc_run_as_the_user(make_cluster, test_users):
    c = make_cluster(nodes=1)
    u = test_users[1]
    d = user_dir(c, u)
    rc, out, err = as_user(c, u, "srun", "-N1", "id", "-u", cwd=d)
    assert (rc, out.strip()) == (0, str(u.uid)), err
    rc, out, err = as_user(c, u, "salloc", "-N1", "srun", "id", "-G", cwd=d)
    assert rc == 0, err
    assert sorted(int(g) for g in out.split()) == u.groups


def test_output_files_are_opened_as_the_user(make_cluster, test_users):
    c = make_cluster(nodes=1)
    u = test_users[0]
    d = user_dir(c, u)
    secret = c.dir / "root-owned"
    secret.write_text("root's\n")
    os.chmod(secret, 0o644)
    (d / "link").symlink_to(secret)
    before = (open("/etc/passwd").read(), secret.read_text())
    for target in ("/etc/passwd", str(d / "link")):
        jid = sbatch_as(c, u, d, "-o", target, "--wrap", "echo pwned")
        c.wait_done(jid)
        assert c.show_job(jid)["JobState"] == "FAILED", target
    assert (open("/etc/passwd").read(), secret.read_text()) == before
    # Input too: a root-only file cannot be read through -i.
    private = c.dir / "private"
    private.write_text("secret\n")
    os.chmod(private, 0o600)
    jid = sbatch_as(c, u, d, "-i", str(private), "-o", "in.out", "--wrap", "cat")
    c.wait_done(jid)
    assert c.show_job(jid)["JobState"] == "FAILED"
    assert not (d / "in.out").exists() or "secret" not in (d / "in.out").read_text()


def test_the_working_directory_is_entered_as_the_user(make_cluster, test_users):
    c = make_cluster(nodes=1)
    u = test_users[0]
    d = user_dir(c, u)
    closed = c.dir / "closed"
    closed.mkdir(mode=0o700)
    jid = sbatch_as(c, u, d, "-D", str(closed), "-o", str(d / "wd.out"),
                    "--wrap", "pwd")
    c.wait_done(jid)
    text = (d / "wd.out").read_text()
    # As outside Drover: the user cannot enter it, so the job runs in /tmp.
    assert f"couldn't chdir to `{closed}'" in text
    assert text.strip().splitlines()[-1] == "/tmp"


def test_a_body_claiming_another_user_runs_as_the_sender(make_cluster, test_users):
    c = make_cluster(nodes=1)
    u = test_users[1]
    d = user_dir(c, u)
    out = d / "claim.out"
    body = dict(SUBMIT, user="root", uid=0, gid=0, name="claim", workdir=str(d),
                submit_dir=str(d), script=f"#!/bin/sh\nid -u > {out}\n")
    env = {"v": 1, "type": "job.submit", "id": 7, "body": body}
    # The wire helpers of test_ctld_auth, run as the user: authd signs for
    # whoever is on its socket, so the credential says drvusr2.
    code = ("import json, pathlib, sys\n"
            "from test_ctld_auth import send, signed\n"
            "class C: pass\n"
            "c = C(); c.dir = pathlib.Path(sys.argv[1]); c.conf = c.dir / 'drover.conf'\n"
            "print(json.dumps(send(c, signed(c, json.loads(sys.stdin.read())))))\n")
    p = subprocess.run([*u.prefix, sys.executable, "-c", code, str(c.dir)],
                       input=json.dumps(env), capture_output=True, text=True, timeout=30,
                       env=dict(c.env, PYTHONPATH=os.path.dirname(__file__)), cwd=d)
    assert p.returncode == 0, p.stderr
    reply = json.loads(p.stdout)
    assert reply["rc"] == 0, reply
    jid = reply["body"]["job_id"]
    c.wait_done(jid)
    assert out.read_text().strip() == str(u.uid)
    assert c.show_job(jid)["UserId"] == f"{u.name}({u.uid})"


def test_a_users_cluster_takes_that_users_jobs_only(make_cluster, test_users):
    c = make_cluster(nodes=1, owner="nobody")
    assert "SlurmdUser=nobody" in c.conf.read_text()
    u = test_users[0]
    p = subprocess.run([*u.prefix, str(c.bin / "sbatch"), "--wrap", "true"], cwd="/tmp",
                       env=c.env, capture_output=True, text=True, timeout=30)
    rc, err = p.returncode, p.stderr
    assert rc == 1
    assert "accepts jobs from that user only" in err
    wait_for(lambda: c.job_ids() == [], what="no job created")


def proc_uid(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("Uid:")).split()[1])


def test_ctld_runs_as_slurm_user_without_root(make_cluster, test_users, service_user):
    s = service_user
    c = make_cluster(nodes=1, sets={"SlurmUser": s.name})
    ctld = int((c.dir / "run" / "ctld.pid").read_text().split()[0])
    assert proc_uid(ctld) == s.uid
    # The key is the controller's to read, and no one else's.
    key = c.dir / "drover.key"
    assert (key.stat().st_uid, key.stat().st_mode & 0o777) == (s.uid, 0o600)
    assert (c.dir / "ctld").stat().st_uid == s.uid
    # Clients believe replies signed as SlurmUser; node daemons stay root and
    # run each user's job as that user.
    u = test_users[0]
    d = user_dir(c, u)
    jid = sbatch_as(c, u, d, "-o", "id.out", "--wrap", "id -u")
    c.wait_done(jid)
    assert (d / "id.out").read_text().strip() == str(u.uid)
    shown = c.ok("scontrol", "show", "config")
    assert re.search(rf"^SlurmUser += {s.name}\({s.uid}\)$", shown, re.M), shown
    assert re.search(r"^SlurmdUser += root\(0\)$", shown, re.M), shown
    # A restart as root hands over what the store holds now.
    c.down()
    c.up()
    ctld = int((c.dir / "run" / "ctld.pid").read_text().split()[0])
    assert proc_uid(ctld) == s.uid
    assert c.show_job(jid)["JobState"] == "COMPLETED"


SYSTEM = ("/etc/drover", "/var/lib/drover")


def test_roots_default_cluster_is_found_by_every_user(test_users):
    if any(os.path.exists(p) for p in SYSTEM):
        pytest.skip("a system cluster exists on this machine; not touching it")
    from conftest import BIN
    env = {k: v for k, v in os.environ.items() if k not in ("DROVER_CONF", "SLURM_CONF")}
    env["PATH"] = f"{BIN}:{env['PATH']}"

    def drover(*args):
        return subprocess.run([str(BIN / "drover"), *args], env=env, capture_output=True,
                              text=True, timeout=120)
    d = None
    try:
        p = drover("up", "--nodes", "1", "--set", "SlurmdTimeout=5", "--set", "KillWait=1")
        assert p.returncode == 0, p.stderr
        assert "export DROVER_CONF=/etc/drover/drover.conf" in p.stdout
        conf, key = "/etc/drover/drover.conf", "/etc/drover/drover.key"
        assert os.stat(conf).st_mode & 0o777 == 0o644
        assert os.stat(key).st_mode & 0o777 == 0o600
        assert os.path.isdir("/var/lib/drover/ctld")
        assert "StateSaveLocation=/var/lib/drover/ctld" in open(conf).read()
        # Another user, with nothing set, finds the cluster and submits.
        u = test_users[1]
        d = pathlib.Path(tempfile.mkdtemp(prefix="drv-u-", dir="/tmp"))
        os.chown(d, u.uid, u.gid)
        run = subprocess.run([*u.prefix, str(BIN / "sbatch"), "--parsable", "-o", "o.txt",
                              "--wrap", "id -un"], env=env, cwd=d, capture_output=True,
                             text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        jid = run.stdout.strip()
        wait_for(lambda: (d / "o.txt").exists() and (d / "o.txt").read_text().strip(),
                 what="the job's output")
        assert (d / "o.txt").read_text().strip() == u.name
        q = subprocess.run([*u.prefix, str(BIN / "sacct"), "-n", "-X", "-j", jid, "-o",
                            "user%20"], env=env, cwd=d, capture_output=True, text=True,
                           timeout=60)
        assert q.stdout.split() == [u.name], q.stderr
    finally:
        drover("down")
        for path in SYSTEM:
            shutil.rmtree(path, ignore_errors=True)
        if d:
            shutil.rmtree(d, ignore_errors=True)
