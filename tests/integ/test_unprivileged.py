"""An unprivileged user runs a whole cluster (started as root, these tests
drop to nobody with setpriv), and a cluster refuses jobs from any uid but
its owner's (local mode)."""

import os
import pathlib
import shutil
import tempfile

import pytest

from conftest import BIN, as_nobody_prefix, run

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become nobody")


PROGRAMS = ["drover", "drover-authd", "drover-ctld", "drover-noded", "drover-shepherd",
            "sbatch", "squeue", "scancel", "scontrol"]


@pytest.fixture(scope="module")
def nobody_bin():
    """A program dir nobody can run: the build dir itself, or (when it lies
    under a private dir such as /root) a world-readable copy; the programs
    find their siblings beside themselves, so a copy works the same."""
    rc, _, _ = run(as_nobody_prefix() + ["test", "-x", BIN / "drover"])
    if rc == 0:
        yield BIN
        return
    copy = tempfile.mkdtemp(prefix="drv-bin-", dir="/tmp")
    os.chmod(copy, 0o755)
    for p in PROGRAMS:
        shutil.copy2(BIN / p, copy)
        os.chmod(os.path.join(copy, p), 0o755)
    rc, _, err = run(as_nobody_prefix() + ["test", "-x", os.path.join(copy, "drover")])
    if rc != 0:
        shutil.rmtree(copy)
        pytest.skip(f"nobody cannot run programs from /tmp: {err}")
    yield pathlib.Path(copy)
    shutil.rmtree(copy, ignore_errors=True)


def nobody_env(home, bin):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DROVER_CONF", "XDG_STATE_HOME")}
    env.update(HOME=str(home), USER="nobody", LOGNAME="nobody",
               PATH=f"{bin}:/usr/bin:/bin")
    return env


@pytest.fixture
def nobody_home():
    """A HOME owned by nobody; removed after the clusters in it are down
    (request it before make_cluster so that it is torn down after)."""
    home = tempfile.mkdtemp(prefix="drv-home-", dir="/tmp")
    os.chmod(home, 0o755)
    os.chown(home, 65534, 65534)
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_unprivileged_user_runs_a_cluster_in_its_default_dir(nobody_bin, nobody_home,
                                                            make_cluster):
    home = nobody_home
    env = nobody_env(home, nobody_bin)
    prefix = as_nobody_prefix()
    # No --dir: the default is ~/.local/state/drover.
    rc, out, err = run(prefix + [nobody_bin / "drover", "up", "--nodes", "1",
                                 "--set", "SlurmdTimeout=5"], env=env, cwd=home,
                       timeout=90)
    state = os.path.join(home, ".local/state/drover")
    c = make_cluster(start=False, owner="nobody", dir=state, bin=nobody_bin)
    assert rc == 0, err
    c.apply_exports(out)
    assert c.env["DROVER_CONF"] == os.path.join(state, "drover.conf")
    assert os.stat(os.path.join(state, "drover.key")).st_mode & 0o077 == 0
    c.env.update(HOME=home, USER="nobody", LOGNAME="nobody")
    jid = c.sbatch("--wrap", "id -u; echo $HOME")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    out_file = c.work / f"slurm-{jid}.out"
    assert out_file.read_text() == f"65534\n{home}\n"
    assert os.stat(out_file).st_uid == 65534
    assert os.stat(c.pidfile("ctld")).st_uid == 65534

    # root is another uid: this cluster refuses its jobs.
    before = c.job_ids()
    rc, out, err = run(["sbatch", "--wrap", "true"], cwd="/tmp",
                       env=dict(os.environ, DROVER_CONF=c.env["DROVER_CONF"],
                                PATH=f"{BIN}:/usr/bin:/bin"))
    assert rc != 0 and out == ""
    assert "denied" in err.lower(), err
    assert c.job_ids() == before

    rc, out, err = c.drover("down")
    assert rc == 0, err


def test_roots_cluster_runs_another_uids_job_as_that_uid(nobody_bin, make_cluster):
    """The other direction of the test above: root's cluster is a multi-user
    one (SlurmdUser is root), so nobody's job is taken and runs as nobody."""
    c = make_cluster(nodes=1)
    work = tempfile.mkdtemp(prefix="drv-nobody-", dir="/tmp")
    os.chown(work, 65534, 65534)
    try:
        env = dict(nobody_env(work, nobody_bin), DROVER_CONF=str(c.conf))
        rc, out, err = run(as_nobody_prefix() + ["sbatch", "--parsable", "-o", "o.txt",
                                                 "--wrap", "id -u"], env=env, cwd=work)
        assert rc == 0, err
        c.wait_done(int(out.strip()))
        assert pathlib.Path(work, "o.txt").read_text().strip() == "65534"
    finally:
        shutil.rmtree(work, ignore_errors=True)
