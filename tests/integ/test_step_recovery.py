"""Steps survive a restart of ctld or of a node's noded: the tasks run on
(their shepherds are nobody's children but init's), srun gets their output
and exits, and the step ends COMPLETED in the accounting."""
import subprocess

from conftest import wait_for


def start_step(c):
    p = subprocess.Popen(["srun", "-N2", "-n2", "-l", "sh", "-c",
                          "echo up; sleep 3; echo done $SLURM_PROCID"],
                         env=c.env, cwd=c.work, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    # both tasks have started once both "up" lines came through srun
    got = [p.stdout.readline(), p.stdout.readline()]
    assert sorted(got) == ["0: up\n", "1: up\n"]
    return p


def finish(c, p):
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert sorted(out.splitlines()) == ["0: done 0", "1: done 1"]
    jid = c.ok("sacct", "-X", "-n", "-P", "--format=JobID").split()[-1]

    def step_done():
        rows = c.ok("sacct", "-j", jid, "-n", "-P", "--format=JobID,State")
        return f"{jid}.0|COMPLETED" in rows.splitlines() and rows
    wait_for(step_done, 30, what=f"step {jid}.0 COMPLETED")


def test_step_survives_ctld_restart(make_cluster):
    c = make_cluster(nodes=2)
    p = start_step(c)
    try:
        c.kill9("ctld")
        c.up()
        finish(c, p)
    finally:
        if p.poll() is None:
            p.kill()


def test_step_survives_noded_restart(make_cluster):
    c = make_cluster(nodes=2)
    p = start_step(c)
    try:
        c.kill9("n2")
        c.up()
        finish(c, p)
        # the restarted noded reported the step and cleaned its dir
        wait_for(lambda: not list((c.dir / "spool" / "n2").glob("step.*")), 15,
                 what="n2's step dir to go")
    finally:
        if p.poll() is None:
            p.kill()
