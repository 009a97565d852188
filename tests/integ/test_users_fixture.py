"""The shared test users exist while a session holds them (issue 13)."""

import pwd
import subprocess


def test_the_two_users_are_distinct_and_unprivileged(test_users):
    a, b = test_users
    assert a.uid != b.uid and 0 not in (a.uid, b.uid)
    assert pwd.getpwnam(a.name).pw_uid == a.uid
    # drvusr1 alone holds the shared group, and setpriv gives it to them.
    assert len(a.groups) == 2 and len(b.groups) == 1
    out = subprocess.run(a.prefix + ["id", "-G"], capture_output=True, text=True,
                         check=True).stdout.split()
    assert sorted(int(g) for g in out) == a.groups
    out = subprocess.run(b.prefix + ["id", "-u"], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert int(out) == b.uid
