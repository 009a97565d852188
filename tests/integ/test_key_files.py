"""Key files readable only by their owner: each daemon (authd, ctld, noded)
refuses to start when its key is readable or writable by group or others,
with one line naming the file and its mode, and a non-zero exit."""

import os

import pytest

from conftest import BIN, run


@pytest.fixture
def stopped(make_cluster):
    """A cluster's config and key, with no daemon running."""
    c = make_cluster(nodes=1)
    rc, out, err = c.down()
    assert rc == 0, err
    return c


@pytest.mark.parametrize("daemon, args", [
    ("drover-authd", ["-D"]),
    ("drover-ctld", ["-D"]),
    ("drover-noded", ["-D", "-N", "n1"]),
])
def test_daemon_refuses_a_key_others_can_read(stopped, daemon, args):
    c = stopped
    key = c.dir / "drover.key"
    for mode in (0o644, 0o640, 0o604, 0o620):
        os.chmod(key, mode)
        # in the foreground: run() returning at all means it exited
        rc, out, err = run([BIN / daemon, "-f", c.conf, *args], timeout=20)
        assert rc != 0, f"{daemon} started with a mode {mode:04o} key"
        lines = [ln for ln in (out + err).splitlines() if ln.strip()]
        want = f"key file {key} is readable by others (mode {mode:04o}); chmod 600 it"
        assert len(lines) == 1 and lines[0].endswith(want), lines
    # with the key private again the same config is good (-t checks and exits)
    os.chmod(key, 0o600)
    if daemon != "drover-noded":  # noded -t checks the config, not the key
        rc, out, err = run([BIN / daemon, "-f", c.conf, "-t"], timeout=20)
        assert rc == 0, out + err


def test_drover_up_refuses_a_key_others_can_read(stopped):
    c = stopped
    os.chmod(c.dir / "drover.key", 0o644)
    rc, out, err = c.drover("up", "--dir", c.dir)
    assert rc != 0
    assert f"key file {c.dir / 'drover.key'} is readable by others (mode 0644)" in out + err
