"""Batch jobs end to end: #SBATCH lines, output files, the job environment,
stdin scripts, --wrap, sbatch's exact output, squeue columns, cancel,
failing and signalled jobs."""

import os
import re
import socket

from conftest import pid_alive, wait_for


def test_sbatch_lines_run_and_output_file_holds_what_it_printed(cluster):
    cluster.write("job.sh", "#!/bin/bash\n"
                  "#SBATCH -J myname\n"
                  "#SBATCH -o out-%j-%x.txt\n"
                  "echo hello from drover\n"
                  "echo to stderr >&2\n")
    jid = cluster.sbatch("job.sh")
    job = cluster.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    assert job["JobName"] == "myname"
    assert job["ExitCode"] == "0:0"
    out = (cluster.work / f"out-{jid}-myname.txt").read_text()
    # Without -e, stderr goes to the -o file too.
    assert out == "hello from drover\nto stderr\n"


def test_command_line_overrides_sbatch_lines(cluster):
    cluster.write("job.sh", "#!/bin/bash\n#SBATCH -J fromfile\necho x\n")
    jid = cluster.sbatch("-J", "fromcli", "job.sh")
    assert cluster.wait_done(jid)["JobName"] == "fromcli"


ENV_VARS = ["SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NAME", "SLURM_SUBMIT_DIR",
            "SLURM_SUBMIT_HOST", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
            "SLURM_JOB_NUM_NODES", "SLURM_NNODES", "SLURM_CLUSTER_NAME",
            "SLURM_JOB_PARTITION", "SLURMD_NODENAME", "ENVIRONMENT", "DROVER_CONF",
            "MY_SUBMIT_VAR"]


def test_batch_environment(cluster):
    lines = "".join(f'echo "{v}=${{{v}-<unset>}}"\n' for v in ENV_VARS)
    cluster.write("env.sh", "#!/bin/bash\n#SBATCH -J envjob\n#SBATCH -o env.out\n" + lines)
    env = dict(cluster.env, MY_SUBMIT_VAR="passed through")
    rc, out, err = cluster.run("sbatch", "--parsable", "env.sh", env=env)
    assert rc == 0, err
    jid = int(out)
    job = cluster.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    got = dict(line.split("=", 1) for line in
               (cluster.work / "env.out").read_text().splitlines())
    node = job["NodeList"]
    assert node in ("n1", "n2")
    want = {
        "SLURM_JOB_ID": str(jid), "SLURM_JOBID": str(jid), "SLURM_JOB_NAME": "envjob",
        "SLURM_SUBMIT_DIR": str(cluster.work), "SLURM_JOB_NODELIST": node,
        "SLURM_NODELIST": node, "SLURM_JOB_NUM_NODES": "1", "SLURM_NNODES": "1",
        "SLURM_CLUSTER_NAME": "drover", "SLURM_JOB_PARTITION": "debug",
        "SLURMD_NODENAME": node, "ENVIRONMENT": "BATCH",
        "DROVER_CONF": str(cluster.conf), "MY_SUBMIT_VAR": "passed through",
    }
    for k, v in want.items():
        assert got.get(k) == v, f"{k}: got {got.get(k)!r}, want {v!r}"
    assert got["SLURM_SUBMIT_HOST"] in (socket.gethostname(), socket.getfqdn()), got


def test_script_on_stdin_and_wrap(cluster):
    jid = cluster.sbatch(input="#!/bin/bash\necho from stdin\n")
    job = cluster.wait_done(jid)
    assert job["JobState"] == "COMPLETED"
    assert job["JobName"] == "sbatch"
    assert (cluster.work / f"slurm-{jid}.out").read_text() == "from stdin\n"

    jid = cluster.sbatch("--wrap", "echo wrapped; echo $((6*7))")
    job = cluster.wait_done(jid)
    assert job["JobState"] == "COMPLETED"
    assert job["JobName"] == "wrap"
    assert (cluster.work / f"slurm-{jid}.out").read_text() == "wrapped\n42\n"


def test_sbatch_prints_exactly_submitted_and_parsable(cluster):
    cluster.write("job.sh", "#!/bin/bash\ntrue\n")
    rc, out, err = cluster.run("sbatch", "job.sh")
    assert rc == 0
    m = re.fullmatch(r"Submitted batch job (\d+)\n", out)
    assert m, repr(out)
    assert err == ""
    rc, out2, err2 = cluster.run("sbatch", "--parsable", "job.sh")
    assert rc == 0 and err2 == ""
    assert re.fullmatch(r"\d+\n", out2), repr(out2)
    assert int(out2) > int(m.group(1))


def test_squeue_shows_running_and_pending_with_columns(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=("--cpus", "1"))  # one CPU: the second job must wait
    c.write("long.sh", "#!/bin/bash\nsleep 60\n")
    running = c.sbatch("-J", "longjob", "long.sh")
    c.wait_state(running, "RUNNING")
    pending = c.sbatch("-J", "waiting", "long.sh")
    user = c.ok("id", "-un").strip()

    out = c.ok("squeue")
    lines = out.splitlines()
    assert lines[0].split() == ["JOBID", "PARTITION", "NAME", "USER", "ST", "TIME",
                                "NODES", "NODELIST(REASON)"]
    rows = {int(line.split()[0]): line.split() for line in lines[1:]}
    assert rows[running][1:5] == ["debug", "longjob", user[:8], "R"]
    assert rows[running][6:] == ["1", "n1"]
    assert re.fullmatch(r"\d+:\d\d", rows[running][5])
    assert rows[pending][1:5] == ["debug", "waiting", user[:8], "PD"]
    assert rows[pending][5] == "0:00"
    assert rows[pending][7] in ("(Resources)", "(Priority)")

    out = c.ok("squeue", "-h", "-o", "%i %T %D %R", "-t", "PD")
    assert out.split() == [str(pending), "PENDING", "1", rows[pending][7]]
    out = c.ok("squeue", "-h", "-j", str(running), "-o", "%i|%j|%t")
    assert out == f"{running}|longjob|R\n"


def test_scancel_cancels_and_processes_are_gone(cluster):
    cluster.write("sleepy.sh", "#!/bin/bash\n"
                  "sleep 300 &\n"
                  "echo $$ $! > pids\n"
                  "wait\n")
    jid = cluster.sbatch("sleepy.sh")
    cluster.wait_state(jid, "RUNNING")
    pidfile = cluster.work / "pids"
    wait_for(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2,
             10, what="the job to write its pids")
    pids = [int(p) for p in pidfile.read_text().split()]
    assert all(pid_alive(p) for p in pids)
    rc, out, err = cluster.run("scancel", str(jid))
    assert rc == 0 and out == "" and err == ""
    job = cluster.wait_state(jid, "CANCELLED")
    assert job["JobState"] == "CANCELLED"
    wait_for(lambda: not any(pid_alive(p) for p in pids), 10,
             what="the job's processes to be gone")


def test_scancel_signal_reaches_the_job(cluster):
    cluster.write("trap.sh", "#!/bin/bash\n"
                  "trap 'echo got USR1; exit 0' USR1\n"
                  "echo ready > ready\n"
                  "while :; do sleep 0.1; done\n")
    jid = cluster.sbatch("trap.sh")
    wait_for(lambda: (cluster.work / "ready").exists(), 20, what="the job to start")
    cluster.ok("scancel", "-f", "-s", "USR1", str(jid))
    job = cluster.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    assert "got USR1" in (cluster.work / f"slurm-{jid}.out").read_text()


def test_failing_script_ends_failed_with_exit_code(cluster):
    jid = cluster.sbatch("--wrap", "echo failing; exit 3")
    job = cluster.wait_done(jid)
    assert job["JobState"] == "FAILED", job
    assert job["ExitCode"] == "3:0"
    out = cluster.ok("scontrol", "show", "job", str(jid))
    assert "ExitCode=3:0" in out


def test_job_killed_by_signal(cluster):
    jid = cluster.sbatch("--wrap", "kill -KILL $$")
    job = cluster.wait_done(jid)
    assert job["JobState"] == "FAILED", job
    assert job["ExitCode"] == "0:9"


def test_unknown_job_id(cluster):
    rc, out, err = cluster.run("scontrol", "show", "job", "999999")
    assert rc != 0
    assert "Invalid job id specified" in err
    # Slurm's scancel passes over an unknown job silently; a signal to it
    # is an error.
    rc, out, err = cluster.run("scancel", "999999")
    assert (rc, out, err) == (0, "", "")
    rc, out, err = cluster.run("scancel", "--signal=USR1", "999999")
    assert rc == 1
    assert err == "scancel: error: Kill job error on job id 999999: Invalid job id specified\n"
    assert os.path.exists(cluster.conf)
