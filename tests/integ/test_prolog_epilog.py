"""Prolog and epilog (issue 5, point 7): noded runs Prolog before a job's
shepherd and Epilog after the job, with Slurm's SLURM_* environment; a
failing (or timed out) Prolog drains the node with reason "Prolog error" and
requeues the job held, so it runs elsewhere once released; a failing Epilog
drains the node ("Epilog error"); the shepherd runs TaskProlog, whose
`export`/`unset`/`print` lines shape the job. Slurm 22.05's slurm.conf(5) is
the reference."""

from conftest import wait_for


def make(make_cluster, scripts, nodes=2, **sets):
    """scripts: {"Prolog": text, ...}, written into the cluster dir."""
    c = make_cluster(nodes=nodes, sets=sets, start=False)
    c.sets["AuthInfo"] = (f"socket={c.dir}/run/authd.sock,key={c.dir}/drover.key,"
                          "cred_expire=1")
    for key, text in scripts.items():
        p = c.dir / f"{key.lower()}.sh"
        p.write_text(text)
        p.chmod(0o755)
        c.sets[key] = str(p)
    c.up()
    return c


def drained(c):
    out = c.ok("sinfo", "-R", "-h", "-o", "%N|%E")
    return dict(line.split("|", 1) for line in out.splitlines() if line)


def test_failing_prolog_drains_node_and_job_runs_elsewhere(make_cluster, tmp_path):
    flag = tmp_path / "failed_on"
    c = make(make_cluster, {"Prolog": f"""#!/bin/sh
if [ ! -e {flag} ]; then echo "$SLURMD_NODENAME" > {flag}; exit 3; fi
exit 0
"""})
    jid = c.sbatch("-o", "/dev/null", "--wrap", "echo ran on $SLURMD_NODENAME > where")
    wait_for(lambda: flag.exists(), 20, what="the prolog to fail")
    bad = flag.read_text().strip()
    wait_for(lambda: drained(c).get(bad) == "Prolog error", 20, what="drain")
    job = c.wait_state(jid, "PENDING", 20)
    wait_for(lambda: c.show_job(jid)["Reason"] == "job_requeued_in_held_state", 20,
             what="held after the prolog failure")
    assert c.show_job(jid)["Restarts"] == "1"
    c.ok("scontrol", "release", str(jid))
    job = c.wait_done(jid, 30)
    other = "n2" if bad == "n1" else "n1"
    assert job["JobState"] == "COMPLETED" and job["NodeList"] == other, job
    assert (c.work / "where").read_text() == f"ran on {other}\n"
    assert c.show_node(bad)["State"].startswith("IDLE+DRAIN"), c.show_node(bad)


def test_prolog_timeout_kills_it_and_drains(make_cluster):
    c = make(make_cluster, {"Prolog": "#!/bin/sh\nsleep 300\n"}, nodes=1,
             PrologEpilogTimeout="2")
    out = c.ok("scontrol", "show", "config")
    assert "PrologEpilogTimeout     = 2\n" in out
    assert f"Prolog                  = {c.dir}/prolog.sh\n" in out
    jid = c.sbatch("-o", "/dev/null", "--wrap", "true")
    wait_for(lambda: drained(c).get("n1") == "Prolog error", 20, what="drain")
    wait_for(lambda: c.show_job(jid)["Reason"] == "job_requeued_in_held_state", 20,
             what="held")
    # the prolog's process group is gone
    rc, out, err = c.run("pgrep", "-f", f"{c.dir}/prolog.sh")
    assert rc == 1, out
    c.ok("scancel", str(jid))


def test_epilog_runs_after_the_job_with_slurm_env(make_cluster, tmp_path):
    out = tmp_path / "epilog.env"
    c = make(make_cluster, {"Epilog": f"""#!/bin/sh
test -e "$SLURM_JOB_ID.done" 2>/dev/null
/usr/bin/env > {out}.tmp
mv {out}.tmp {out}
"""}, nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "exit 7")
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "FAILED"
    wait_for(lambda: out.exists(), 10, what="the epilog")
    env = dict(line.split("=", 1) for line in out.read_text().splitlines())
    import os
    import pwd
    assert env["SLURM_JOB_ID"] == str(jid)
    assert env["SLURM_JOB_USER"] == pwd.getpwuid(os.getuid()).pw_name
    assert env["SLURM_JOB_UID"] == str(os.getuid())
    assert env["SLURMD_NODENAME"] == "n1"
    assert env["SLURM_JOB_NODELIST"] == "n1"
    assert env["SLURM_JOB_PARTITION"] == job["Partition"]
    assert env["SLURM_SCRIPT_CONTEXT"] == "epilog_slurmd"
    assert env["SLURM_JOB_EXIT_CODE2"] == "7:0"
    assert env["SLURM_JOB_EXIT_CODE"] == str(7 << 8)
    assert "DROVER_CONF" not in env  # nothing of noded's own environment
    assert "HOME" not in env
    assert drained(c) == {}


def test_failing_epilog_drains_the_node(make_cluster):
    c = make(make_cluster, {"Epilog": "#!/bin/sh\nexit 1\n"}, nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "true")
    assert c.wait_done(jid, 30)["JobState"] == "COMPLETED"
    wait_for(lambda: drained(c).get("n1") == "Epilog error", 20, what="drain")


def test_task_prolog_shapes_the_job_environment(make_cluster):
    c = make(make_cluster, {"TaskProlog": """#!/bin/sh
echo "export X=1"
echo "export GREETING=hello world=yes"
echo "unset DROP_ME"
echo "print from the task prolog $SLURM_JOB_ID"
echo "ignored line"
"""}, nodes=1)
    env = dict(c.env, DROP_ME="x")
    rc, out, err = c.run("sbatch", "--parsable", "-o", "t.out", "--wrap",
                         'echo "X=$X G=$GREETING D=${DROP_ME-unset}"', env=env)
    jid = int(out.strip())
    assert c.wait_done(jid, 30)["JobState"] == "COMPLETED"
    assert (c.work / "t.out").read_text() == (
        f"from the task prolog {jid}\nX=1 G=hello world=yes D=unset\n")


def test_task_epilog_runs_after_the_script(make_cluster, tmp_path):
    out = tmp_path / "te"
    c = make(make_cluster, {"TaskEpilog": f"#!/bin/sh\necho \"$SLURM_JOB_ID $(cat ran)\" > {out}\n"},
             nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "echo yes > ran")
    assert c.wait_done(jid, 30)["JobState"] == "COMPLETED"
    wait_for(lambda: out.exists() and out.read_text() == f"{jid} yes\n", 10,
             what="task epilog")


def test_prolog_and_epilog_slurmctld_around_the_job(make_cluster, tmp_path):
    pro, epi = tmp_path / "pro", tmp_path / "epi"
    c = make(make_cluster, {
        "PrologSlurmctld": f"#!/bin/sh\n/usr/bin/env > {pro}.tmp; mv {pro}.tmp {pro}\n",
        "EpilogSlurmctld": f"#!/bin/sh\n/usr/bin/env > {epi}.tmp; mv {epi}.tmp {epi}\n",
    }, nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", f"test -e {pro} && exit 3")
    job = c.wait_done(jid, 30)
    assert job["ExitCode"] == "3:0", job  # the prolog ran before the script
    wait_for(lambda: epi.exists(), 10, what="EpilogSlurmctld")
    env = dict(line.split("=", 1) for line in pro.read_text().splitlines())
    assert env["SLURM_JOB_ID"] == str(jid)
    assert env["SLURM_SCRIPT_CONTEXT"] == "prolog_slurmctld"
    assert env["SLURM_JOB_NODELIST"] == "n1"
    assert env["SLURM_JOB_NAME"] == "wrap"
    env = dict(line.split("=", 1) for line in epi.read_text().splitlines())
    assert env["SLURM_SCRIPT_CONTEXT"] == "epilog_slurmctld"
    assert env["SLURM_JOB_EXIT_CODE2"] == "3:0"


def test_failing_prolog_slurmctld_requeues_the_job(make_cluster, tmp_path):
    flag = tmp_path / "failed"
    c = make(make_cluster, {"PrologSlurmctld": f"""#!/bin/sh
if [ ! -e {flag} ]; then touch {flag}; exit 1; fi
"""}, nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "echo r=$SLURM_RESTART_COUNT > r")
    job = c.wait_done(jid, 40)
    assert job["JobState"] == "COMPLETED" and job["Restarts"] == "1", job
    assert (c.work / "r").read_text() == "r=1\n"
    assert drained(c) == {}  # only the job is affected
    flag.unlink()  # the prolog fails once more
    nr = c.sbatch("--no-requeue", "-o", "/dev/null", "--wrap", "true")
    job = c.wait_done(nr, 30)
    assert job["JobState"] == "FAILED" and job["Restarts"] == "0", job


def test_prolog_slurmctld_runs_again_after_ctld_kill9(make_cluster, tmp_path):
    runs, go = tmp_path / "runs", tmp_path / "go"
    c = make(make_cluster, {"PrologSlurmctld": f"""#!/bin/sh
echo "$SLURM_JOB_ID" >> {runs}
while [ ! -e {go} ]; do sleep 0.1; done
"""}, nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "echo ran > ran")
    wait_for(lambda: runs.exists() and runs.read_text() == f"{jid}\n", 20,
             what="the prolog")
    assert not (c.work / "ran").exists()  # the launch waits for it
    c.kill9("ctld")
    c.up()
    wait_for(lambda: runs.read_text() == f"{jid}\n{jid}\n", 20,
             what="the prolog to run again")
    go.touch()
    assert c.wait_done(jid, 30)["JobState"] == "COMPLETED"
    assert (c.work / "ran").read_text() == "ran\n"


def test_requeue_while_prolog_slurmctld_runs(make_cluster, tmp_path):
    runs, go = tmp_path / "runs", tmp_path / "go"
    c = make(make_cluster, {"PrologSlurmctld": f"""#!/bin/sh
echo "$SLURM_RESTART_COUNT" >> {runs}
while [ ! -e {go} ]; do sleep 0.1; done
"""}, nodes=1)
    jid = c.sbatch("-o", "/dev/null", "--wrap", "echo r=$SLURM_RESTART_COUNT > ran")
    wait_for(lambda: runs.exists(), 20, what="the prolog")
    c.ok("scontrol", "requeue", str(jid))
    assert c.show_job(jid)["JobState"] == "PENDING"
    # nothing was launched: the node is free at once, no run to wait for
    assert c.show_node("n1")["CPUAlloc"] == "0", c.show_node("n1")
    go.touch()
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "COMPLETED" and job["Restarts"] == "1", job
    assert (c.work / "ran").read_text() == "r=1\n"
    assert runs.read_text() == "\n1\n"
