"""Node health checks (issue 14, item 8): noded runs HealthCheckProgram every
HealthCheckInterval seconds while the node's state is one
HealthCheckNodeState names; a program that fails drains the node with its
first output line as reason (Slurm's own contract, a program that runs
`scontrol update State=DRAIN` itself, works too); one that hangs is killed
after HealthCheckTimeout and drains the node, while noded goes on working;
a passing check changes nothing; `scontrol update State=RESUME` brings the
node back. slurm.conf(5) is the reference; docs/compat.md says where Drover
differs."""

import time

import pytest

from conftest import BIN, pid_alive, run, wait_for


def make(make_cluster, text, nodes=2, **sets):
    """A cluster whose HealthCheckProgram is text (a shell script)."""
    c = make_cluster(nodes=nodes, sets=dict({"HealthCheckInterval": "1"}, **sets),
                     start=False)
    p = c.dir / "health.sh"
    p.write_text(text)
    p.chmod(0o755)
    c.sets["HealthCheckProgram"] = str(p)
    c.up()
    return c


def drained(c):
    out = c.ok("sinfo", "-R", "-h", "-o", "%N|%E")
    return dict(line.split("|", 1) for line in out.splitlines() if line)


def lines(path):
    return path.read_text().splitlines() if path.exists() else []


def test_failing_check_drains_with_its_message_and_resume_brings_it_back(
        make_cluster, tmp_path):
    bad = tmp_path / "bad.n1"
    bad.touch()
    runs = tmp_path / "runs"
    c = make(make_cluster, f"""#!/bin/sh
if [ -e {tmp_path}/bad.$SLURMD_NODENAME ]; then
  echo "GPU 3 missing on $SLURMD_NODENAME"
  echo "a second line that is not the reason"
  echo "fail $SLURMD_NODENAME" >> {runs}
  exit 1
fi
echo "ok $SLURMD_NODENAME" >> {runs}
exit 0
""")
    wait_for(lambda: drained(c).get("n1") == "GPU 3 missing on n1", 20,
             what="n1 drained with the program's first line")
    assert c.show_node("n1")["State"] == "IDLE+DRAIN", c.show_node("n1")
    # the passing node ran the check more than once and nothing changed
    wait_for(lambda: lines(runs).count("ok n2") >= 2, 20, what="n2's checks")
    assert "n2" not in drained(c)
    assert c.show_node("n2")["State"] == "IDLE"
    # no job starts on the drained node
    jid = c.sbatch("-w", "n1", "-o", "/dev/null", "--wrap", "true")
    other = c.sbatch("-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(other)["NodeList"] == "n2"
    assert c.state(jid) == "PENDING"
    # fixed: once a check has passed, RESUME brings it back and the job runs
    bad.unlink()
    seen = len(lines(runs))
    wait_for(lambda: "ok n1" in lines(runs)[seen:], 20, what="a passing check on n1")
    c.ok("scontrol", "update", "NodeName=n1", "State=RESUME")
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "COMPLETED" and job["NodeList"] == "n1", job
    seen = len(lines(runs))
    wait_for(lambda: "ok n1" in lines(runs)[seen:], 20, what="another check on n1")
    assert drained(c) == {}
    assert "HealthCheckProgram failed" in c.log("n1")


def test_silent_failure_drains_with_the_exit_code(make_cluster):
    c = make(make_cluster, "#!/bin/sh\nexit 3\n", nodes=1)
    wait_for(lambda: drained(c).get("n1") == "HealthCheck failed: exit 3", 20,
             what="n1 drained with the exit code")


def test_program_that_drains_the_node_itself(make_cluster):
    """Slurm's contract: the program calls scontrol; its reason stands."""
    c = make(make_cluster, f"""#!/bin/sh
{BIN}/scontrol update NodeName=$SLURMD_NODENAME State=DRAIN Reason="nhc: /scratch full"
exit 1
""", nodes=1)
    wait_for(lambda: drained(c).get("n1") == "nhc: /scratch full", 20,
             what="the program's own drain")
    # its later failures keep the reason it gave
    wait_for(lambda: "already drained" in c.log("ctld"), 20,
             what="a failure on the drained node")
    assert drained(c)["n1"] == "nhc: /scratch full"


def test_hanging_check_is_killed_and_noded_keeps_working(make_cluster, tmp_path):
    pidfile = tmp_path / "check.pid"
    # longer than SlurmdTimeout (5 s): a noded that waited for the program
    # would be marked DOWN (Not responding) before the check is killed
    c = make(make_cluster, f"""#!/bin/sh
if [ "$SLURMD_NODENAME" = n1 ]; then
  echo $$ > {pidfile}.tmp
  /bin/mv {pidfile}.tmp {pidfile}
  exec /bin/sleep 300
fi
exit 0
""", HealthCheckTimeout="8")
    wait_for(lambda: pidfile.exists(), 20, what="the check to start on n1")
    pid = int(pidfile.read_text())
    # noded launches and reports a job while its check hangs
    jid = c.sbatch("-w", "n1", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(jid, 20)["JobState"] == "COMPLETED"
    assert pid_alive(pid), "the check ended before the test could see noded work"
    wait_for(lambda: drained(c).get("n1") == "HealthCheck timed out after 8 sec", 30,
             what="n1 drained for the timeout")
    wait_for(lambda: not pid_alive(pid), 10, what="the hanging check to be killed")
    assert c.show_node("n1")["State"] == "IDLE+DRAIN", c.show_node("n1")
    assert "Not responding" not in c.log("ctld")
    assert "n2" not in drained(c)


def test_node_state_decides_when_it_runs(make_cluster, tmp_path):
    """ALLOC,MIXED: never on an idle node; on a busy one, it runs."""
    c = make(make_cluster, f"""#!/bin/sh
echo "$(date +%s)" >> {tmp_path}/runs.$SLURMD_NODENAME
echo "busy check on $SLURMD_NODENAME"
exit 1
""", HealthCheckNodeState="ALLOC,MIXED")
    out = c.ok("scontrol", "show", "config")
    assert "HealthCheckNodeState    = ALLOC,MIXED\n" in out
    assert "HealthCheckInterval     = 1 sec\n" in out
    assert f"HealthCheckProgram      = {c.dir}/health.sh\n" in out
    jid = c.sbatch("-w", "n1", "-o", "/dev/null", "--wrap", "sleep 60")
    c.wait_state(jid, "RUNNING")
    wait_for(lambda: drained(c).get("n1") == "busy check on n1", 20,
             what="n1 drained by a check while busy")
    # idle all along (its ticks are n1's), n2 never ran it
    assert not (tmp_path / "runs.n2").exists()
    assert "n2" not in drained(c)
    # nor did n1 before the job: its first run came after the job started
    start = _epoch(c.show_job(jid)["StartTime"])
    assert int(lines(tmp_path / "runs.n1")[0]) >= start
    # the running job is not touched by the drain
    assert c.state(jid) == "RUNNING"
    c.ok("scancel", str(jid))


def _epoch(stamp):
    return int(time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")))


@pytest.mark.parametrize("line, message", [
    ("HealthCheckNodeState=IDLE,BUSY",
     "HealthCheckNodeState: 'BUSY' is not ALLOC, ANY, CYCLE, IDLE, MIXED or "
     "NONDRAINED_IDLE"),
    ("HealthCheckNodeState=",
     "the value of HealthCheckNodeState is missing"),
    ("HealthCheckInterval=-5", "HealthCheckInterval: -5 is out of range (0-65535)"),
    ("HealthCheckInterval=often", "HealthCheckInterval: 'often' is not a number"),
    ("HealthCheckTimeout=0", "HealthCheckTimeout: 0 is out of range (1-65535)"),
])
def test_bad_values_refused_with_file_and_line(cluster, tmp_path, line, message):
    lines_ = cluster.conf.read_text().splitlines()
    at = len(lines_) // 2
    bad = tmp_path / "bad.conf"
    bad.write_text("\n".join(lines_[:at] + [line] + lines_[at:]) + "\n")
    want = f"drover-ctld: error: {bad}:{at + 1}: {message}\n"
    assert run([BIN / "drover-ctld", "-t", "-f", bad]) == (1, "", want)
    rc, out, err = run([BIN / "drover-noded", "-t", "-N", "n1", "-f", bad])
    assert (rc, out) == (1, "") and err == want.replace("drover-ctld", "drover-noded")


def test_shown_values_and_cycle(make_cluster):
    c = make_cluster(nodes=1, sets={"HealthCheckNodeState": "cycle,idle"})
    out = c.ok("scontrol", "show", "config")
    assert "HealthCheckNodeState    = CYCLE,IDLE\n" in out
    assert "HealthCheckInterval     = 0 sec\n" in out
    assert "HealthCheckProgram      = (null)\n" in out


def test_reconfigure_turns_the_check_on(cluster, tmp_path):
    """The keys change live: a running noded starts checking on reconfigure."""
    c = cluster
    p = tmp_path / "health.sh"
    p.write_text("#!/bin/sh\necho \"reconfigured check failed on $SLURMD_NODENAME\"\n"
                 "exit 1\n")
    p.chmod(0o755)
    conf = c.conf.read_text()
    c.conf.write_text(conf + f"HealthCheckProgram={p}\nHealthCheckInterval=1\n"
                      "HealthCheckNodeState=IDLE\n")
    assert c.run("scontrol", "reconfigure") == (0, "", "")
    want = {"n1": "reconfigured check failed on n1",
            "n2": "reconfigured check failed on n2"}
    wait_for(lambda: drained(c) == want, 20, what="both nodes drained")
    # and off again: RESUME now sticks
    c.conf.write_text(conf)
    assert c.run("scontrol", "reconfigure") == (0, "", "")
    for n in ("n1", "n2"):
        wait_for(lambda: c.log(n).count(f"node={n} reconfigure: HealthCheckProgram")
                 == 2, 10, what=f"{n} to take the change")
    c.ok("scontrol", "update", "NodeName=n[1-2]", "State=RESUME")
    assert drained(c) == {}
