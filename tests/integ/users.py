"""Unprivileged local users for multi-user scenario tests (issue 13).

`drvusr1` and `drvusr2`, plus a group `drvshare` that only drvusr1 holds
as a supplementary group, and `drvslurm`, a service account for SlurmUser,
made once per test session with useradd and
removed after. Parallel test workers (pytest -n) share them: a lock file
serializes the changes to /etc/passwd and /etc/group, and a list of the
pids holding the users decides who removes them (the last one out; a
holder that died is pruned, so a crashed run leaves nothing stuck).
Needs root; `users_or_skip` skips cleanly elsewhere."""

import fcntl
import grp
import os
import pwd
import subprocess
from collections import namedtuple

import pytest

NAMES = ("drvusr1", "drvusr2", "drvslurm")
SHARED_GROUP = "drvshare"
STATE = "/tmp/drover-test-users"  # .lock and .holders

User = namedtuple("User", "name uid gid groups prefix")


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


class _Locked:
    def __enter__(self):
        self.f = open(STATE + ".lock", "a")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def _holders():
    try:
        with open(STATE + ".holders") as f:
            pids = [int(x) for x in f.read().split()]
    except FileNotFoundError:
        pids = []
    return [p for p in pids if _alive(p)]


def _write_holders(pids):
    with open(STATE + ".holders", "w") as f:
        f.write(" ".join(str(p) for p in pids))


def _exists(name, db):
    try:
        db(name)
        return True
    except KeyError:
        return False


def _make():
    if not _exists(SHARED_GROUP, grp.getgrnam):
        subprocess.run(["groupadd", SHARED_GROUP], check=True)
    for name in NAMES:
        if not _exists(name, pwd.getpwnam):
            extra = ["-G", SHARED_GROUP] if name == NAMES[0] else []
            subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/bash",
                            "--home-dir", "/nonexistent", *extra, name], check=True)
    # A user left from a run whose userdel failed (a process of theirs was
    # still there) may have lost the group with groupdel: give it back.
    if NAMES[0] not in grp.getgrnam(SHARED_GROUP).gr_mem:
        subprocess.run(["usermod", "-a", "-G", SHARED_GROUP, NAMES[0]], check=True)


def _remove():
    for name in NAMES:
        subprocess.run(["userdel", "--force", name], check=False, capture_output=True)
    subprocess.run(["groupdel", SHARED_GROUP], check=False, capture_output=True)


def _user(name):
    pw = pwd.getpwnam(name)
    groups = sorted(set(os.getgrouplist(name, pw.pw_gid)))
    prefix = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
              "--init-groups"]
    return User(name, pw.pw_uid, pw.pw_gid, groups, prefix)


@pytest.fixture(scope="session")
def test_users():
    """(drvusr1, drvusr2) as User tuples; skips unless run as root."""
    if os.geteuid() != 0:
        pytest.skip("needs root to create test users")
    with _Locked():
        holders = _holders()
        _make()
        _write_holders(holders + [os.getpid()])
    try:
        yield tuple(_user(n) for n in NAMES[:2])
    finally:
        with _Locked():
            holders = [p for p in _holders() if p != os.getpid()]
            _write_holders(holders)
            if not holders:
                _remove()


@pytest.fixture(scope="session")
def service_user(test_users):
    """drvslurm, an account to run ctld as (SlurmUser)."""
    return _user(NAMES[2])
