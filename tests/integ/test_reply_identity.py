"""Replies are believed only from ctld's identity (issue 10, item 3).

authd signs a credential for any local user who asks, so anyone on the host
who can listen on ctld's port could have authd sign a forged reply. Clients
therefore check whom the reply's credential was issued to: root or SlurmUser
(which `drover up` writes as the user it runs as). Here the real ctld is
killed and a fake one (tests/integ/fake_ctld.py) answers on its port, first
as an ordinary user (every command refuses it, one clear line, rc != 0),
then as root, the cluster's SlurmUser, to show that the fake speaks the
protocol well enough to be believed when it is signed by the right user."""

import os
import pathlib
import subprocess

import pytest

from conftest import as_nobody_prefix
from test_bad_input import ctld_port

FAKE = pathlib.Path(__file__).with_name("fake_ctld.py")

COMMANDS = [
    ["sbatch", "--wrap", "true"],
    ["squeue"],
    ["sinfo"],
    ["scontrol", "show", "job", "1"],
    ["scontrol", "show", "node"],
    ["scancel", "1"],
    ["sacct", "-j", "1"],
    ["srun", "true"],
    ["salloc", "true"],
]

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="needs root to run the fake ctld as another user")


def start_fake(c, prefix, log):
    p = subprocess.Popen(prefix + ["/usr/bin/python3", str(FAKE), str(ctld_port(c)),
                                   str(c.dir / "run" / "authd.sock"), str(log)],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "listening"
    return p


def stop(p):
    p.kill()
    p.wait(timeout=10)


@pytest.fixture
def forged(make_cluster):
    c = make_cluster(nodes=1)
    assert "SlurmUser=root\n" in c.conf.read_text()
    c.kill9("ctld")
    log = c.dir / "fake.log"
    log.touch()
    os.chmod(log, 0o666)
    return c, log


def test_replies_signed_by_another_user_are_refused(forged):
    c, log = forged
    fake = start_fake(c, as_nobody_prefix(), log)
    try:
        for cmd in COMMANDS:
            before = log.read_text().count("\n")
            rc, out, err = c.run(*cmd)
            assert rc != 0, f"{cmd} believed a forged reply: {out}"
            lines = err.strip().splitlines()
            assert len(lines) == 1, f"{cmd}: {err!r}"
            assert "signed as uid 65534" in lines[0] and "SlurmUser root" in lines[0], \
                lines[0]
            assert "4242" not in out
            # The fake answered: the refusal is about who signed, not silence.
            assert log.read_text().count("\n") > before, f"{cmd} never reached the fake"
    finally:
        stop(fake)


def test_the_same_fake_signed_as_slurm_user_is_believed(forged):
    c, log = forged
    fake = start_fake(c, [], log)
    try:
        out = c.ok("sbatch", "--wrap", "true")
        assert out == "Submitted batch job 4242\n"
    finally:
        stop(fake)


def test_ctld_refuses_to_run_as_other_than_slurm_user(make_cluster):
    c = make_cluster(nodes=1, owner="nobody", sets={"SlurmUser": "root"}, start=False)
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1", "--set", "SlurmUser=root")
    assert rc != 0
    assert "running as uid 65534, but SlurmUser is root (uid 0): clients would " \
        "refuse every reply" in out + err + c.log("ctld")
