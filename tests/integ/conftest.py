"""Scenario tests: each test brings up a real local cluster (authd, ctld and
noded on 127.0.0.1) in its own temp dir with `drover up`, talks to it with
the real commands, and takes it down with `drover down`, then kills by pid
whatever is left. Nothing here sleeps and hopes: every wait has a condition
and a deadline (wait_for)."""

import fcntl
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
from users import service_user, test_users  # noqa: F401  (session fixtures)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("DROVER_BIN", ROOT / "build")).resolve()

TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
            "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}


def run(cmd, env=None, input=None, cwd=None, timeout=60):
    """Runs cmd (a list); returns (rc, stdout, stderr) as text."""
    p = subprocess.run([str(c) for c in cmd], env=env, input=input, cwd=cwd,
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def wait_for(pred, timeout=30.0, interval=0.1, what="condition"):
    """Polls pred() until it returns something truthy; fails at the deadline."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = pred()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what} "
                                 f"(last: {last!r})")
        time.sleep(interval)


def pid_alive(pid):
    """True while any thread of pid exists and is not a zombie.

    A killed multi-threaded daemon's main thread turns zombie before its
    other threads finish exiting, and those still hold its files (and the
    pid file's lock), so the main thread's state alone says dead too soon."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX":
            return True
    return False


def pidfile_locked(path):
    """True while a daemon holds its pid file's lock (drv_pidfile_lock)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def parse_fields(text):
    """scontrol's `Key=Value Key=Value` output as a dict (first value wins)."""
    fields = {}
    for k, v in re.findall(r"(\w+)=(\S*)", text):
        fields.setdefault(k, v)
    return fields


def as_nobody_prefix():
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


class Cluster:
    """One local cluster in its own directory."""

    def __init__(self, nodes=2, sets=(), dir=None, owner=None, bin=None):
        self.bin = pathlib.Path(bin or BIN)
        self.nodes = nodes
        self.sets = dict({"SlurmdTimeout": "5", "KillWait": "1"}, **dict(sets))
        # Short paths: authd's socket must fit in sun_path (108 bytes).
        self.dir = pathlib.Path(dir or tempfile.mkdtemp(prefix="drv-", dir="/tmp"))
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o755)
        self.work = self.dir / "work"
        self.work.mkdir(exist_ok=True)
        self.owner = owner  # None: the test's own user; "nobody": via setpriv
        self.conf = self.dir / "drover.conf"
        base = {k: v for k, v in os.environ.items() if k != "DROVER_CONF"}
        self.env = dict(base, PATH=f"{self.bin}:{base.get('PATH', '/usr/bin:/bin')}")
        self.up_out = ""

    # -- running commands --------------------------------------------------
    def prefix(self):
        return as_nobody_prefix() if self.owner == "nobody" else []

    def run(self, *cmd, input=None, cwd=None, env=None, timeout=60):
        cwd = cwd or (self.work if self.work.is_dir() else "/")
        return run(self.prefix() + list(cmd), env=env or self.env, input=input,
                   cwd=cwd, timeout=timeout)

    def ok(self, *cmd, **kw):
        rc, out, err = self.run(*cmd, **kw)
        assert rc == 0, f"{cmd} failed rc={rc}\nstdout: {out}\nstderr: {err}"
        return out

    def drover(self, *args, timeout=90):
        return self.run(self.bin / "drover", *args, timeout=timeout)

    # -- lifecycle --------------------------------------------------------
    def up(self, extra=()):
        args = ["up", "--dir", self.dir, "--nodes", str(self.nodes)]
        for k, v in self.sets.items():
            args += ["--set", f"{k}={v}"]
        rc, out, err = self.drover(*args, *extra)
        assert rc == 0, f"drover up failed rc={rc}\nstdout: {out}\nstderr: {err}"
        self.up_out = out
        self.apply_exports(out)
        return rc, out, err

    def apply_exports(self, out):
        for line in out.splitlines():
            m = re.fullmatch(r"export DROVER_CONF=(\S+)", line)
            if m:
                self.env["DROVER_CONF"] = m.group(1).strip("'")
            m = re.fullmatch(r"export PATH=(\S+):\$PATH", line)
            if m:
                self.env["PATH"] = m.group(1).strip("'") + ":" + self.env["PATH"]
            m = re.fullmatch(r"export MANPATH=(\S+):\$MANPATH", line)
            if m:
                self.env["MANPATH"] = (m.group(1).strip("'") + ":" +
                                       self.env.get("MANPATH", ""))

    def down(self):
        return self.drover("down", "--dir", self.dir)

    def pidfiles(self):
        return sorted((self.dir / "run").glob("*.pid"))

    def pidfile(self, name):
        """name: 'ctld', 'authd' or a node name."""
        base = name if name in ("ctld", "authd") else f"noded-{name}"
        return self.dir / "run" / f"{base}.pid"

    def pid(self, name):
        return int(self.pidfile(name).read_text().split()[0])

    def kill9(self, name):
        pid = self.pid(name)
        os.kill(pid, signal.SIGKILL)
        path = self.pidfile(name)
        wait_for(lambda: not pid_alive(pid) and not pidfile_locked(path), 10,
                 what=f"{name} ({pid}) to die and free its pid file")
        return pid

    def kill_leftovers(self):
        """Safety net after `drover down`: kill by pid what is still ours."""
        spool = self.dir / "spool"
        for jobdir in [*spool.glob("*/job.*"), *spool.glob("*/step.*")]:
            try:
                shepherd = int((jobdir / "shepherd.pid").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            if pid_alive(shepherd) and "drover" in cmdline(shepherd):
                try:
                    pgid = int((jobdir / "pgid").read_text().split()[0])
                    os.killpg(pgid, signal.SIGKILL)
                except (OSError, ValueError, IndexError):
                    pass
                os.kill(shepherd, signal.SIGKILL)
        for pf in self.pidfiles():
            try:
                pid = int(pf.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            if pid > 1 and pid_alive(pid) and "drover" in cmdline(pid):
                os.kill(pid, signal.SIGKILL)

    # -- jobs ---------------------------------------------------------------
    def write(self, name, text, mode=0o755):
        p = self.work / name
        p.write_text(text)
        p.chmod(mode)
        if self.owner == "nobody":
            os.chown(p, 65534, 65534)
        return p

    def sbatch(self, *args, input=None):
        out = self.ok("sbatch", "--parsable", *args, input=input)
        return int(out.strip().split(";")[0])

    def show_job(self, jid):
        rc, out, err = self.run("scontrol", "show", "job", str(jid))
        assert rc == 0, f"scontrol show job {jid}: rc={rc} {err}"
        return parse_fields(out)

    def state(self, jid):
        return self.show_job(jid).get("JobState")

    def wait_state(self, jid, states, timeout=30):
        states = {states} if isinstance(states, str) else set(states)
        return wait_for(lambda: self.state(jid) in states and self.show_job(jid),
                        timeout, what=f"job {jid} to reach {states}")

    def wait_done(self, jid, timeout=30):
        return wait_for(lambda: self.state(jid) in TERMINAL and self.show_job(jid),
                        timeout, what=f"job {jid} to end")

    def show_node(self, name):
        rc, out, err = self.run("scontrol", "show", "node", name)
        assert rc == 0, f"scontrol show node {name}: rc={rc} {err}"
        return parse_fields(out)

    def job_ids(self):
        out = self.ok("squeue", "-h", "-o", "%i")
        return sorted(int(x) for x in out.split())

    def log(self, name="ctld"):
        p = self.dir / "log" / ("ctld.log" if name == "ctld" else f"noded-{name}.log")
        return p.read_text(errors="replace") if p.exists() else ""


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture(scope="session", autouse=True)
def built():
    if not (BIN / "drover").exists():
        pytest.exit(f"no drover in {BIN}: run `make` (or set DROVER_BIN)", 2)


@pytest.fixture
def make_cluster():
    """Factory: make_cluster(nodes=2, sets={...}, start=True, owner=None)."""
    made = []

    def make(nodes=2, sets=(), start=True, owner=None, dir=None, bin=None):
        c = Cluster(nodes=nodes, sets=sets, owner=owner, dir=dir, bin=bin)
        made.append(c)
        if owner == "nobody":
            os.chown(c.dir, 65534, 65534)
            os.chown(c.work, 65534, 65534)
        if start:
            c.up()
        return c

    yield make
    for c in made:
        try:
            c.down()
        finally:
            c.kill_leftovers()
            shutil.rmtree(c.dir, ignore_errors=True)


@pytest.fixture
def cluster(make_cluster):
    return make_cluster()
