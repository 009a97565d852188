"""ctld's recovery rules (docs/state-machines.md), one test each: launches
are sent again when the batch host comes back, completions reach a restarted
ctld, admin state wins over the config's State=, a node reporting less than
its config is drained with Slurm's reason, a ctld restart alone does not mark
nodes DOWN, and every acknowledged submit survives a kill -9."""

import concurrent.futures
import time

from conftest import wait_for


def test_launch_is_sent_again_when_the_batch_host_comes_back(make_cluster):
    c = make_cluster(nodes=1, sets={"SlurmdTimeout": "30"})
    c.kill9("n1")
    jid = c.sbatch("--wrap", "echo launched late")
    # The allocation is committed while noded is away: the job holds n1 ...
    job = c.wait_state(jid, "RUNNING")
    assert job["NodeList"] == "n1"
    assert not (c.work / f"slurm-{jid}.out").exists()
    # ... and runs once noded registers again.
    c.up()
    assert c.wait_done(jid, 30)["JobState"] == "COMPLETED"
    assert (c.work / f"slurm-{jid}.out").read_text() == "launched late\n"


def test_completion_while_ctld_is_down_reaches_it_after_restart(make_cluster):
    c = make_cluster(nodes=1, sets={"SlurmdTimeout": "30"})
    c.write("job.sh", "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\nexit 7\n")
    jid = c.sbatch("job.sh")
    c.wait_state(jid, "RUNNING")
    c.kill9("ctld")
    (c.work / "go").touch()
    spool = c.dir / "spool" / "n1" / f"job.{jid}" / "status"
    wait_for(spool.exists, 10, what="the job to end while ctld is down")
    c.up()
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "FAILED", job
    assert job["ExitCode"] == "7:0"


def test_runtime_resume_wins_over_config_drain_across_restart(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up()
    conf = c.conf.read_text().replace("NodeName=n1 ", "NodeName=n1 State=DRAIN ", 1)
    c.conf.write_text(conf)
    c.kill9("ctld")
    c.up()
    assert "DRAIN" in c.show_node("n1")["State"], "config State=DRAIN not applied"
    c.ok("scontrol", "update", "NodeName=n1", "State=RESUME")
    c.kill9("ctld")
    c.up()
    node = c.show_node("n1")
    assert "DRAIN" not in node["State"], f"config State= won over RESUME: {node}"
    assert c.wait_done(c.sbatch("--wrap", "true"))["JobState"] == "COMPLETED"


def test_node_reporting_less_than_configured_is_drained(make_cluster):
    c = make_cluster(nodes=1, start=False,
                     sets={"SlurmdParameters": "shutdown_on_reboot"})
    c.up(extra=("--cpus", "1", "--mem", "900000000"))
    node = wait_for(lambda: (n := c.show_node("n1")) and "DRAIN" in n["State"] and n,
                    10, what="n1 drained")
    assert "Low RealMemory (reported:" in c.ok("scontrol", "show", "node", "n1")
    jid = c.sbatch("--wrap", "true")
    # ctld schedules in the turn that commits the submit: had n1 been usable,
    # the job would be RUNNING by the time sbatch returned.
    assert c.state(jid) == "PENDING"
    assert node["State"].startswith("IDLE")


def test_ctld_restart_alone_does_not_mark_nodes_down(make_cluster):
    c = make_cluster(nodes=2, sets={"SlurmdTimeout": "2"})
    c.kill9("ctld")
    c.up()
    started = time.monotonic()
    # Past SlurmdTimeout after the restart, both nodes must still be up.
    wait_for(lambda: time.monotonic() - started > 4, 10, what="SlurmdTimeout to pass")
    for n in ("n1", "n2"):
        assert not c.show_node(n)["State"].startswith("DOWN"), c.show_node(n)


def test_every_acknowledged_submit_survives_kill9(make_cluster):
    c = make_cluster(nodes=1)
    c.ok("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=hold jobs")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        acked = list(pool.map(lambda i: c.sbatch("--wrap", f"echo {i}"), range(24)))
    c.kill9("ctld")
    c.up()
    assert c.job_ids() == sorted(acked)
    assert len(set(acked)) == len(acked)
