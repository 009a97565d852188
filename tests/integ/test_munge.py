"""AuthType=auth/munge on a real munged (Debian's `munge`): each test starts
its own munged on a private socket with a fresh key in a temp dir and stops
it by pid. A whole cluster runs on it (no authd), a replayed, expired or
lifted MUNGE credential is refused and logged, ctld's replies carry a MUNGE
credential of the reply, and a missing or unreachable socket is one line
naming it. Skips only when munged is not installed."""

import hashlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import as_nobody_prefix, pid_alive, run, wait_for
from test_bad_input import assert_still_serving, connect
from wire import canonical, frame, recv_frame

MUNGED = shutil.which("munged") or "/usr/sbin/munged"
MUNGEKEY = shutil.which("mungekey") or "/usr/sbin/mungekey"
MUNGE = shutil.which("munge") or "/usr/bin/munge"
UNMUNGE = shutil.which("unmunge") or "/usr/bin/unmunge"


class Munged:
    """One munged in its own directory: dir/munge.sock, dir/munge.key."""

    def __init__(self):
        # short: the socket path must fit in sun_path (108 bytes)
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="mg-", dir="/tmp"))
        os.chmod(self.dir, 0o755)  # munged wants its socket's dir searchable
        self.socket = self.dir / "munge.sock"
        self.key = self.dir / "munge.key"
        self.pidfile = self.dir / "munged.pid"
        self.log = self.dir / "munged.log"
        self.pid = None

    def start(self):
        if os.path.exists(MUNGEKEY):
            rc, out, err = run([MUNGEKEY, "--create", "--keyfile", self.key])
            assert rc == 0, f"mungekey failed: {out}{err}"
        else:
            self.key.write_bytes(os.urandom(1024))
        os.chmod(self.key, 0o400)
        args = [MUNGED, "--socket", self.socket, "--key-file", self.key,
                "--pid-file", self.pidfile, "--log-file", self.log,
                "--seed-file", self.dir / "munged.seed"]
        if os.geteuid() == 0:
            args.append("--force")  # munged refuses root's usual dirs otherwise
        rc, out, err = run(args)
        assert rc == 0, f"munged failed to start: {out}{err}\n{self.log_text()}"
        # munged writes its pid file and binds its socket before its parent exits
        self.pid = int(wait_for(lambda: self.pidfile.exists() and
                                self.pidfile.read_text().strip(), 10,
                                what="munged's pid file"))
        wait_for(self.socket.exists, 10, what="munged's socket")

    def log_text(self):
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self):
        if self.pid and pid_alive(self.pid):
            os.kill(self.pid, signal.SIGTERM)
            try:
                wait_for(lambda: not pid_alive(self.pid), 10, what="munged to stop")
            except AssertionError:
                os.kill(self.pid, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)

    def encode(self, payload, ttl=None):
        args = [MUNGE, "--socket", self.socket, "--string", payload]
        if ttl is not None:
            args += ["--ttl", str(ttl)]
        rc, out, err = run(args)
        assert rc == 0, err
        return out.strip()

    def decode(self, cred):
        """unmunge's metadata (KEY: value lines) and payload."""
        p = subprocess.run([UNMUNGE, "--socket", str(self.socket)], input=cred,
                           capture_output=True, text=True, timeout=10)
        head, _, payload = p.stdout.partition("\n\n")
        meta = dict(line.split(":", 1) for line in head.splitlines() if ":" in line)
        return p.returncode, {k.strip(): v.strip() for k, v in meta.items()}, payload


@pytest.fixture
def munged():
    if not os.path.exists(MUNGED):
        pytest.skip("munged is not installed (Debian: apt-get install munge; "
                    "scripts/install-deps installs it)")
    m = Munged()
    try:
        m.start()
        yield m
    finally:
        m.stop()


def munge_sets(m):
    return {"AuthType": "auth/munge", "AuthInfo": f"socket={m.socket}"}


def digest(env):
    return hashlib.sha256(canonical({k: v for k, v in env.items()
                                     if k != "cred"})).hexdigest()


def send_bytes(c, data):
    s = connect(c)
    s.sendall(data)
    reply = recv_frame(s)
    s.close()
    return reply


def munge_request(m, type_, body, id_=3, ttl=None):
    env = {"v": 1, "type": type_, "id": id_, "body": body}
    env["cred"] = {"munge": m.encode(digest(env), ttl)}
    return frame(json.dumps(env).encode())


def test_a_cluster_runs_on_munge(make_cluster, munged):
    c = make_cluster(sets=munge_sets(munged))
    conf = c.conf.read_text()
    assert "AuthType=auth/munge" in conf and f"socket={munged.socket}" in conf, conf
    assert not c.pidfile("authd").exists(), "drover up started authd under auth/munge"
    assert not (c.dir / "run" / "authd.sock").exists()
    rc, out, err = c.drover("status", "--dir", c.dir)
    assert rc == 0 and "authd" not in out, out + err

    out = c.write("job.sh", "#!/bin/sh\necho munge-batch-ok\n")
    jid = c.sbatch("-N2", "-o", str(c.work / "out.%j"), str(out))
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    assert (c.work / f"out.{jid}").read_text() == "munge-batch-ok\n"

    rc, out, err = c.run("srun", "-N2", "-l", "echo", "step-ok")
    assert rc == 0, err
    assert sorted(out.splitlines()) == ["0: step-ok", "1: step-ok"], out

    assert str(jid) in c.ok("squeue", "-h", "-t", "all", "-o", "%i")
    rows = wait_for(lambda: [r for r in c.ok("sacct", "-X", "-n", "-P", "-j", str(jid),
                                             "--format=JobID,State").splitlines()
                             if r == f"{jid}|COMPLETED"],
                    30, what=f"sacct to show job {jid} COMPLETED")
    assert rows == [f"{jid}|COMPLETED"]
    # every credential ctld saw came through munged: it decoded them
    assert pid_alive(munged.pid)


def test_replayed_expired_and_lifted_munge_credentials_are_refused(make_cluster,
                                                                   munged):
    c = make_cluster(sets=munge_sets(munged))
    held = c.sbatch("-H", "--wrap", "true")
    jobs = c.job_ids()
    log_before = len(c.log())

    # A genuine request goes through once, and ctld's reply carries a MUNGE
    # credential of the reply's digest, encoded as ctld's user (root here).
    query = munge_request(munged, "job.query", {})
    reply = send_bytes(c, query)
    assert reply and reply["rc"] == 0, reply
    rc, meta, payload = munged.decode(reply["cred"]["munge"])
    assert rc == 0, meta
    assert meta["UID"].endswith(f"({os.geteuid()})"), meta
    assert payload == digest(reply)
    # ... and the same bytes again are refused: munged saw it already.
    again = send_bytes(c, query)
    assert again["rc"] == 1007 and "cred" in again, again

    # A credential of one request lifted onto another (a cancel).
    cancel = {"v": 1, "type": "job.cancel", "id": 4, "body": {"job_ids": [held]}}
    cancel["cred"] = {"munge": munged.encode(digest({"v": 1, "type": "job.query",
                                                     "id": 4, "body": {}}))}
    assert send_bytes(c, frame(json.dumps(cancel).encode()))["rc"] == 1007

    # An authd-style credential means nothing to a munge cluster.
    forged = dict(cancel, cred={"uid": 0, "gid": 0, "nonce": "ab" * 32})
    assert send_bytes(c, frame(json.dumps(forged).encode()))["rc"] == 1007

    # A credential that outlived its TTL (1 s), as munged judges it.
    t0 = time.time()
    late = munge_request(munged, "job.cancel", {"job_ids": [held]}, id_=5, ttl=1)
    wait_for(lambda: time.time() > t0 + 2.5, 5, what="the credential's TTL to pass")
    assert send_bytes(c, late)["rc"] == 1007

    assert_still_serving(c, jobs)
    assert c.state(held) == "PENDING", "a refused request changed the job"
    log = c.log()[log_before:]
    assert "replayed credential" in log, log
    assert "credential expired" in log, log
    assert "digest mismatch" in log, log
    assert "malformed credential" in log, log


def test_missing_or_unreachable_munge_socket_is_one_line(make_cluster, munged):
    c = make_cluster(sets=munge_sets(munged))
    missing = munged.dir / "gone.sock"
    bad = c.dir / "bad.conf"
    bad.write_text(c.conf.read_text().replace(f"socket={munged.socket}",
                                              f"socket={missing}"))
    env = dict(c.env, DROVER_CONF=str(bad))

    # a client
    rc, out, err = c.run("squeue", env=env)
    assert rc != 0 and out == ""
    assert len(err.splitlines()) == 1 and str(missing) in err, err
    assert f"Unable to contact munged at {missing}: No such file" in err, err

    # a daemon: ctld refuses to start (before it daemonizes)
    rc, out, err = run([c.bin / "drover-ctld", "-f", bad])
    assert rc != 0
    assert len(err.splitlines()) == 1 and str(missing) in err, err
    assert pid_alive(c.pid("ctld")), "the running ctld was disturbed"

    # drover up: one line, and nothing started
    fresh = make_cluster(sets={"AuthType": "auth/munge",
                               "AuthInfo": f"socket={missing}"}, start=False)
    rc, out, err = fresh.drover("up", "--dir", fresh.dir, "--nodes", "1",
                                "--set", "AuthType=auth/munge",
                                "--set", f"AuthInfo=socket={missing}")
    assert rc != 0
    lines = [line for line in err.splitlines() if str(missing) in line]
    assert len(lines) == 1 and lines[0].startswith("drover up: "), err
    assert not fresh.pidfiles(), "drover up started daemons without munged"

    # --set AuthType=auth/munge alone: munged's own default socket, not authd's
    plain = make_cluster(start=False)
    rc, out, err = plain.drover("up", "--dir", plain.dir, "--nodes", "1",
                                "--set", "AuthType=auth/munge")
    conf = plain.conf.read_text()
    assert f"AuthInfo=key={plain.dir}/drover.key\n" in conf, conf
    assert "authd.sock" not in conf, conf
    if rc != 0:  # no munged on this host's default socket
        assert "Unable to contact munged at /run/munge/munge.socket.2" in err, err
        assert not plain.pidfiles()

    # a socket the caller may not reach (its directory is root's alone)
    if os.geteuid() == 0:
        os.chmod(munged.dir, 0o700)
        try:
            rc, out, err = run(as_nobody_prefix() + [c.bin / "squeue"], env=c.env)
        finally:
            os.chmod(munged.dir, 0o755)
        assert rc != 0
        assert len(err.splitlines()) == 1 and str(munged.socket) in err, err

    # the cluster itself is unharmed
    assert c.ok("squeue", "-h") == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (cluster mode)")
def test_a_users_job_on_munge_runs_as_that_user(make_cluster, munged, test_users):
    """munged, not authd, says who submits: the job runs as that user."""
    c = make_cluster(nodes=1, sets=munge_sets(munged))
    u = test_users[0]
    d = c.dir / "home" / u.name
    d.mkdir(parents=True)
    os.chown(d, u.uid, u.gid)
    rc, out, err = c.run(*u.prefix, "sbatch", "--parsable", "-o", "id.out",
                         "--wrap", "id -u", cwd=d)
    assert rc == 0, err
    jid = int(out.strip().split(";")[0])
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    assert (d / "id.out").read_text().strip() == str(u.uid)
    assert c.show_job(jid)["UserId"] == f"{u.name}({u.uid})"
    rc, out, err = c.run(*u.prefix, "srun", "-N1", "id", "-u", cwd=d)
    assert (rc, out.strip()) == (0, str(u.uid)), err
