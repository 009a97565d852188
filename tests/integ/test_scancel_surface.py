"""scancel as client tools call it (COMPAT-SURFACE 2.6, row 21): ids and
options in any order, -Q, -b, --clusters/-M, array-task ids, and Slurm
22.05's exit statuses and texts: a plain cancel passes over unknown and
finished jobs silently (exit 0), a signal to them fails with Slurm's
message."""

import pytest

from conftest import wait_for

TRAP = ("#!/bin/bash\n"
        "trap 'echo USR1 >> got' USR1\n"
        "echo ready > ready\n"
        "while :; do sleep 0.1; done\n")


def started(c):
    c.write("trap.sh", TRAP)
    jid = c.sbatch("-o", "/dev/null", "trap.sh")
    wait_for(lambda: (c.work / "ready").exists(), 20, what="the job to start")
    return jid


def signals(c):
    p = c.work / "got"
    return p.read_text().split() if p.exists() else []


@pytest.mark.parametrize("order", [
    ["{id}", "--signal=USR1"], ["{id}", "--signal", "USR1"], ["-s", "USR1", "{id}"],
    ["{id}", "-s", "SIGUSR1"], ["--signal=10", "{id}"], ["{id}", "-b", "-s", "USR1"],
    ["{id}", "--clusters=all", "-s", "USR1"], ["-M", "drover", "{id}", "-s", "USR1"],
])
def test_signal_options_anywhere(cluster, order):
    jid = started(cluster)
    # Without -b, Slurm signals the batch shell only with -f (--full).
    full = [] if "-b" in order else ["-f"]
    rc, out, err = cluster.run("scancel", *full, *[a.format(id=jid) for a in order])
    assert (rc, out, err) == (0, "", "")
    wait_for(lambda: signals(cluster) == ["USR1"], 10, what="USR1 to arrive")
    assert cluster.state(jid) == "RUNNING"
    assert cluster.run("scancel", "--clusters=all", str(jid)) == (0, "", "")
    cluster.wait_state(jid, "CANCELLED")


def test_unknown_and_finished_jobs(cluster):
    done = cluster.sbatch("-o", "/dev/null", "--wrap", "true")
    cluster.wait_state(done, "COMPLETED")
    for ids in (["999999"], [str(done)], ["999999", "888888"], [str(done), "999999"]):
        assert cluster.run("scancel", *ids) == (0, "", ""), ids
    for args in (["--signal=USR1"], ["-b"], ["-b", "-s", "KILL"]):
        for jid in ("999999", str(done)):
            assert cluster.run("scancel", *args, jid) == (
                1, "", f"scancel: error: Kill job error on job id {jid}: "
                       "Invalid job id specified\n"), (args, jid)
            assert cluster.run("scancel", "-Q", *args, jid) == (1, "", "")
    assert cluster.state(done) == "COMPLETED"


def test_array_task_ids(cluster):
    """`<id>_<i>` of a job that is no array names no job, as Slurm finds
    no task there (arrays themselves: test_arrays.py)."""
    jid = cluster.sbatch("-H", "--wrap", "true")
    assert cluster.run("scancel", f"{jid}_1") == (0, "", "")
    assert cluster.run("scancel", "999999_0") == (0, "", "")
    assert cluster.state(jid) == "PENDING"
    assert cluster.run("scancel", "-s", "USR1", f"{jid}_1") == (
        1, "", f"scancel: error: Kill job error on job id {jid}_1: "
               "Invalid job id specified\n")
    # a pending job has no step: Slurm 22.05 passes over it, exit 0
    assert cluster.run("scancel", f"{jid}.0") == (0, "", "")
    assert cluster.run("scancel", f"{jid}_1", str(jid)) == (0, "", "")
    cluster.wait_state(jid, "CANCELLED")


@pytest.mark.parametrize("args, message", [
    (["abc"], "scancel: error: Invalid job id abc\n"),
    (["12abc"], "scancel: error: Invalid job id 12abc\n"),
    (["0"], "scancel: error: Invalid job id 0\n"),
    (["1_x"], "scancel: error: Invalid job id 1_x\n"),
    ([], "scancel: error: No job identification provided\n"),
    (["--signal=FOO", "1"], "Unknown job signal: FOO\n"),
    (["--foo"], "scancel: unrecognized option '--foo'\n"
                "Try \"scancel --help\" for more information\n"),
    (["-Z", "1"], "scancel: invalid option -- 'Z'\n"
                  "Try \"scancel --help\" for more information\n"),
])
def test_refused(cluster, args, message):
    keep = cluster.sbatch("-H", "--wrap", "true")
    assert cluster.run("scancel", *args) == (1, "", message)
    assert cluster.state(keep) == "PENDING"


def test_filters_select_what_they_name(make_cluster):
    """-A, -q, -w narrow the selection; -R and --wckey name what no Drover job
    has, so they match nothing; -i asks Slurm's question for each job."""
    c = make_cluster(nodes=2)
    c.write("hold.sh", "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\n")
    a = c.sbatch("-A", "proj", "-o", "/dev/null", "-J", "a", "hold.sh")
    c.wait_state(a, "RUNNING")
    node = c.show_job(a)["NodeList"]
    b = c.sbatch("-H", "-q", "normal", "--wrap", "true")
    pend = c.sbatch("-H", "--wrap", "true")

    for args in (["-R", "resv"], ["--wckey", "w"], ["-A", "other"], ["-q", "high"],
                 ["-w", "nosuchnode"]):
        assert c.run("scancel", *args) == (0, "", ""), args
    assert {c.state(x) for x in (a, b, pend)} == {"RUNNING", "PENDING"}

    c.ok("scancel", "-w", node)
    c.wait_state(a, "CANCELLED")
    assert c.state(b) == "PENDING" and c.state(pend) == "PENDING"

    rc, out, err = c.run("scancel", "-i", "-t", "PD", input="n\ny\n")
    assert rc == 0 and err == ""
    assert out == (f"Cancel job_id={b} name=wrap partition=debug [y/n]? "
                   f"Cancel job_id={pend} name=wrap partition=debug [y/n]? ")
    assert c.state(b) == "PENDING" and c.state(pend) == "CANCELLED"


def test_steps_not_there(cluster):
    """Slurm 22.05 (checked on its scancel): a step of a job that is not
    active names the step and exits 1 (-Q silences it); a step a running job
    does not have (never had, or that ended) is slurmctld's error, naming the
    job alone, and the exit status is its code's low byte (2017: 225), with
    -Q too; a signal to such a step is no error."""
    c = cluster
    c.write("st.sh", "#!/bin/bash\nsrun true\necho ready > ready\nsleep 300\n")
    jid = c.sbatch("-o", "/dev/null", "st.sh")
    wait_for(lambda: (c.work / "ready").exists(), 30, what="the step to end")
    done = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_state(done, "COMPLETED")
    gone = "Invalid job id specified\n"
    for arg in ("12345.3", f"{done}.0"):
        assert c.run("scancel", arg) == (
            1, "", f"scancel: error: Kill job error on job step id {arg}: {gone}")
        assert c.run("scancel", "-Q", arg) == (1, "", "")
    live = f"scancel: error: Kill job error on job step id {jid}: {gone}"
    for step in ("3", "0"):  # never was; ended
        assert c.run("scancel", f"{jid}.{step}") == (225, "", live)
        assert c.run("scancel", "-Q", f"{jid}.{step}") == (225, "", live)
        assert c.run("scancel", "-s", "USR1", f"{jid}.{step}") == (0, "", "")
    assert c.run("scancel", f"{jid}.3", "12345.1") == (
        225, "", "scancel: error: Kill job error on job step id 12345.1: "
                 f"{gone}{live}")
    assert c.state(jid) == "RUNNING"
    c.ok("scancel", str(jid))
    c.wait_state(jid, "CANCELLED")
