"""srun: steps inside allocations, task launch across nodes, I/O, exits.

Every cluster here has nodes of 2 CPUs; the byte references are Slurm
22.05's (docs/srun-peer-captures.md)."""
import os
import re
import signal
import subprocess
import time

from conftest import wait_for

CPUS = ["--cpus", "2"]


def up(make_cluster, nodes=2, sets=()):
    c = make_cluster(nodes=nodes, sets=sets, start=False)
    c.up(extra=CPUS)
    return c


def sacct_rows(c, jid):
    out = c.ok("sacct", "-j", str(jid), "-P", "-n",
               "--format=JobID,JobName,State,ExitCode,NodeList,NTasks")
    return [line.split("|") for line in out.splitlines()]


def wait_sacct(c, jid, want_ids, timeout=30):
    """Waits until sacct lists every id in want_ids with a final state."""
    def ready():
        rows = sacct_rows(c, jid)
        ids = {r[0]: r for r in rows}
        if all(i in ids and ids[i][2] not in ("RUNNING", "PENDING") for i in want_ids):
            return ids
        return None
    return wait_for(ready, timeout, what=f"sacct rows {want_ids} of job {jid}")


def test_labelled_tasks_across_two_nodes(make_cluster):
    c = up(make_cluster)
    rc, out, err = c.run("srun", "-N2", "-n4", "-l", "printenv", "SLURMD_NODENAME")
    assert rc == 0, err
    assert err == ""  # nothing on stderr on success, as Slurm's srun
    lines = sorted(out.splitlines())
    # block layout: tasks 0,1 on the first node, 2,3 on the second
    assert lines == ["0: n1", "1: n1", "2: n2", "3: n2"]
    rc, out, err = c.run("srun", "-N2", "-n4", "-l", "hostname")
    assert rc == 0 and err == ""
    host = os.uname().nodename
    assert sorted(out.splitlines()) == [f"{t}: {host}" for t in range(4)]


def test_task_environment(make_cluster):
    c = up(make_cluster)
    out = c.ok("srun", "-N2", "-n4", "-m", "cyclic", "-l", "sh", "-c",
               "echo $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURM_NTASKS "
               "$SLURM_NPROCS $SLURM_STEP_ID $SLURM_STEP_NODELIST "
               "$SLURM_STEP_NUM_TASKS $SLURM_STEP_TASKS_PER_NODE $SLURM_TASKS_PER_NODE "
               "$SLURM_JOB_CPUS_PER_NODE $SLURMD_NODENAME $SLURM_GTIDS "
               "${SLURM_SRUN_COMM_HOST:+comm} ${SLURM_LAUNCH_NODE_IPADDR:+ip}")
    rows = {}
    for line in out.splitlines():
        label, rest = line.split(": ", 1)
        rows[int(label)] = rest.split()
    assert sorted(rows) == [0, 1, 2, 3]
    for t, f in rows.items():
        assert f[0] == str(t)  # SLURM_PROCID
        assert f[3:5] == ["4", "4"]  # SLURM_NTASKS SLURM_NPROCS
        assert f[5] == "0" and f[6] == "n[1-2]" and f[7] == "4"
        assert f[8] == "2(x2)" and f[9] == "2(x2)" and f[10] == "2(x2)"
        assert f[-2:] == ["comm", "ip"]
    # cyclic: even tasks on n1 (node 0), odd ones on n2, local ids 0 and 1
    assert [rows[t][11] for t in range(4)] == ["n1", "n2", "n1", "n2"]
    assert [rows[t][2] for t in range(4)] == ["0", "1", "0", "1"]
    assert [rows[t][1] for t in range(4)] == ["0", "0", "1", "1"]
    assert rows[0][12] == "0,2" and rows[1][12] == "1,3"


def test_batch_steps_in_sacct(make_cluster):
    c = up(make_cluster)
    c.write("three.sh", "#!/bin/bash\n"
            "srun -n1 true\n"
            "srun -n2 sh -c 'exit 2'\n"
            "srun -N2 -n4 hostname\n")
    jid = c.sbatch("-N2", "-n4", "-o", "three.out", "three.sh")
    rows = wait_sacct(c, jid, [str(jid), f"{jid}.batch", f"{jid}.0", f"{jid}.1",
                               f"{jid}.2"])
    assert [r[0] for r in sacct_rows(c, jid)] == [
        str(jid), f"{jid}.batch", f"{jid}.0", f"{jid}.1", f"{jid}.2"]
    assert rows[f"{jid}.0"][1:4] == ["true", "COMPLETED", "0:0"]
    assert rows[f"{jid}.1"][1:4] == ["sh", "FAILED", "2:0"]
    assert rows[f"{jid}.2"][1:6] == ["hostname", "COMPLETED", "0:0", "n[1-2]", "4"]
    assert rows[str(jid)][2:4] == ["COMPLETED", "0:0"]  # the script's last command
    text = (c.work / "three.out").read_text()
    assert "srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1" in text
    assert "task 0: Exited with exit code 2" in text
    # each step ended before the next asked: none had to wait for CPUs
    assert "temporarily disabled" not in text


def test_exit_codes_and_signals(make_cluster):
    c = up(make_cluster, nodes=1)
    rc, out, err = c.run("srun", "-n2", "sh", "-c", "exit 3")
    assert rc == 3
    assert err == "srun: error: n1: tasks 0-1: Exited with exit code 3\n"
    rc, out, err = c.run("srun", "-n2", "sh", "-c", "exit $((SLURM_PROCID + 4))")
    assert rc == 5  # the highest task exit code
    rc, out, err = c.run("srun", "-n1", "sh", "-c", "kill -9 $$")
    assert rc == 137
    assert "srun: error: n1: task 0: Killed\n" in err
    assert re.search(r"srun: Force Terminated StepId=\d+\.0\n", err)


def test_kill_on_bad_exit(make_cluster):
    # KillWait long enough that a loaded machine still ends the survivor by
    # its SIGTERM, not by the SIGKILL that follows
    c = up(make_cluster, nodes=1, sets={"KillWait": "10"})
    start = time.monotonic()
    rc, out, err = c.run("srun", "--kill-on-bad-exit", "-n2", "sh", "-c",
                         "if [ $SLURM_PROCID = 0 ]; then exit 1; fi; sleep 30")
    assert time.monotonic() - start < 15  # the sleeper did not run its 30 s
    assert rc == 143, err  # the survivor's SIGTERM, as Slurm
    assert "task 0: Exited with exit code 1" in err
    assert "task 1: Terminated" in err
    assert err.index("task 0: Exited") < err.index("Terminating StepId")
    # without -K the survivor runs on and srun reports the failure
    rc, out, err = c.run("srun", "-n2", "sh", "-c",
                         "if [ $SLURM_PROCID = 0 ]; then exit 1; fi; sleep 1; echo done")
    assert rc == 1 and out == "done\n"


def test_srun_outside_allocation_makes_and_releases_a_job(make_cluster):
    c = up(make_cluster)
    p = subprocess.Popen(["srun", "-N2", "-J", "own", "sleep", "3"], env=c.env,
                         cwd=c.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = wait_for(lambda: " RUNNING " in (q := c.ok(
            "squeue", "-h", "-o", "%i %j %T %D")) and q.strip(), 20,
            what="srun's job running in squeue")
        jid, name, state, nodes = line.split()
        assert (name, state, nodes) == ("own", "RUNNING", "2")
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0 and out == "" and err == ""
    rows = wait_sacct(c, jid, [jid, f"{jid}.0"])
    assert rows[jid][2:4] == ["COMPLETED", "0:0"]
    assert rows[f"{jid}.0"][1:3] == ["own", "COMPLETED"]  # -J names the step too
    # a failing step fails its allocation too
    rc, out, err = c.run("srun", "-n1", "sh", "-c", "exit 4")
    assert rc == 4


def test_concurrent_steps_wait_unless_overlap(make_cluster):
    c = up(make_cluster, nodes=1)
    c.write("two.sh", "#!/bin/bash\n"
            "srun -n1 sleep 2 &\n"
            "sleep 0.5\n"
            "srun -n1 echo second\n"
            "wait\n")
    jid = c.sbatch("-n1", "-o", "two.out", "two.sh")
    c.wait_done(jid, timeout=60)
    text = (c.work / "two.out").read_text()
    assert f"srun: Job {jid} step creation temporarily disabled, retrying " \
           "(Requested nodes are busy)" in text
    assert f"srun: Step created for StepId={jid}.1" in text
    assert "second" in text
    c.write("overlap.sh", "#!/bin/bash\n"
            "srun -n1 sleep 2 &\n"
            "sleep 0.5\n"
            "srun --overlap -n1 echo second\n"
            "wait\n")
    jid = c.sbatch("-n1", "-o", "overlap.out", "overlap.sh")
    c.wait_done(jid, timeout=60)
    text = (c.work / "overlap.out").read_text()
    assert "second" in text and "temporarily disabled" not in text


def test_scancel_one_step(make_cluster):
    c = up(make_cluster, nodes=1)
    c.write("long.sh", "#!/bin/bash\n"
            "srun sleep 60\n"
            "echo step-rc=$?\n")
    jid = c.sbatch("-o", "long.out", "long.sh")
    wait_for(lambda: f"{jid}.0" in c.ok("squeue", "-s", "-h", "-o", "%i"), 60,
             what="step 0 running")
    c.ok("scancel", f"{jid}.0")
    c.wait_done(jid, timeout=60)
    text = (c.work / "long.out").read_text()
    assert "step-rc=143" in text  # the batch script went on after its step
    rows = wait_sacct(c, jid, [str(jid), f"{jid}.0"])
    assert rows[f"{jid}.0"][2].startswith("CANCELLED")
    assert rows[str(jid)][2] == "COMPLETED"
    rc, out, err = c.run("scancel", "--signal=USR1", f"{jid}.7")
    assert rc == 1 and f"job step id {jid}.7" in err


def test_job_end_kills_steps_on_every_node(make_cluster):
    c = up(make_cluster)
    marker = f"drvmark{os.getpid()}"
    # the script ends once both tasks run (their files are there)
    c.write("bg.sh", "#!/bin/bash\n"
            "srun -N2 -n2 bash -c "
            f"'touch started.$SLURM_PROCID; exec -a {marker} sleep 60' &\n"
            "for i in $(seq 600); do [ -e started.0 ] && [ -e started.1 ] && break; "
            "sleep 0.1; done\n")
    jid = c.sbatch("-N2", "bg.sh")
    c.wait_done(jid, timeout=60)
    rows = wait_sacct(c, jid, [str(jid), f"{jid}.0"])
    assert rows[f"{jid}.0"][2].startswith("CANCELLED")

    def sleepers():
        return [p for p in os.listdir("/proc") if p.isdigit() and
                marker in _cmdline(p)]
    wait_for(lambda: not sleepers(), 15, what="the step's tasks to be gone")


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def test_io_files_stdin_and_multi_prog(make_cluster):
    c = up(make_cluster)
    c.ok("srun", "-N2", "-n2", "-o", "out-%j-%t.txt", "sh", "-c", "echo task $SLURM_PROCID")
    files = sorted(p.name for p in c.work.glob("out-*-*.txt"))
    assert len(files) == 2 and files[0].endswith("-0.txt")
    assert (c.work / files[1]).read_text() == "task 1\n"
    # stdin goes to every task by default, to one with --input=N
    assert c.ok("srun", "-n2", "cat", input="hi\n") == "hi\nhi\n"
    assert c.ok("srun", "-n2", "-l", "--input=1", "cat", input="one\n") == "1: one\n"
    c.write("mp.conf", "# task program args\n0 echo zero %t\n1-2 echo rest %t %o\n",
            mode=0o644)
    out = c.ok("srun", "-n3", "-l", "--multi-prog", "mp.conf")
    assert sorted(out.splitlines()) == ["0: zero 0", "1: rest 1 0", "2: rest 2 1"]


def test_salloc_runs_srun_in_its_allocation(make_cluster):
    c = up(make_cluster)
    rc, out, err = c.run("salloc", "-N1", "srun", "printenv", "SLURM_JOB_ID")
    assert rc == 0
    m = re.match(r"salloc: Granted job allocation (\d+)\n"
                 r"salloc: Relinquishing job allocation \1\n$", err)
    assert m, err
    assert out == f"{m.group(1)}\n"
    rows = wait_sacct(c, m.group(1), [m.group(1), f"{m.group(1)}.0"])
    assert rows[m.group(1)][1:3] == ["interactive", "COMPLETED"]


def test_interactive_time_limit(make_cluster):
    c = up(make_cluster, nodes=1)
    rc, out, err = c.run("salloc", "-N1", "--no-shell", "-t", "0:2")
    jid = re.search(r"Granted job allocation (\d+)", err).group(1)
    assert c.state(jid) == "RUNNING"
    c.wait_done(jid, timeout=20)
    assert c.state(jid) == "TIMEOUT"


def test_ctrl_c_twice_ends_the_step(make_cluster):
    c = up(make_cluster, nodes=1)
    p = subprocess.Popen(["srun", "-n1", "sh", "-c", "echo up; exec sleep 60"],
                         env=c.env, cwd=c.work, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        # the task's first line has come through srun: srun is in its loop
        assert p.stdout.readline() == "up\n"
        p.send_signal(signal.SIGINT)
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert "srun: interrupt (one more within 1 sec to abort)" in err
    assert re.search(r"srun: StepId=\d+\.0 task 0: running", err)
    assert "srun: forcing job termination" in err
    assert p.returncode != 0


def test_bad_input(make_cluster):
    c = up(make_cluster, nodes=1)
    rc, out, err = c.run("srun", "--distribution=foo", "true")
    assert (rc, err) == (255, "srun: error: Invalid --distribution specification\n")
    rc, out, err = c.run("srun", "--bogus", "true")
    assert rc == 255 and "srun: unrecognized option '--bogus'" in err
    rc, out, err = c.run("salloc", "-N1", "srun", "-n", "999", "true")
    assert rc == 1
    assert re.search(r"srun: error: Unable to create step for job \d+: More processors "
                     r"requested than permitted\n", err)
    c.write("bad.conf", "0 echo a\n5 echo b\n", mode=0o644)
    rc, out, err = c.run("srun", "-n2", "--multi-prog", "bad.conf")
    assert rc == 1 and "bad.conf" in err
    rc, out, err = c.run("srun", "-N3", "true")
    assert rc == 1 and "Requested node configuration is not available" in err
    # nothing was left allocated or running by any of these
    wait_for(lambda: c.ok("squeue", "-h") == "", 10, what="an empty queue")
    assert c.ok("sinfo", "-h", "-o", "%T").split() == ["idle"]


def test_steps_carve_the_jobs_gpus(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2", "--gpus", "4"])
    c.write("gpus.sh", "#!/bin/bash\n"
            "srun --exact -n1 --gpus=2 sh -c 'echo A=$CUDA_VISIBLE_DEVICES; sleep 1' &\n"
            "sleep 0.3\n"
            "srun --exact -n1 --gpus=2 sh -c 'echo B=$CUDA_VISIBLE_DEVICES'\n"
            "wait\n"
            "srun -n1 sh -c 'echo ALL=$CUDA_VISIBLE_DEVICES'\n"
            "srun --gpus=5 true; echo too-many=$?\n")
    jid = c.sbatch("-n2", "--gpus=4", "-o", "gpus.out", "gpus.sh")
    c.wait_done(jid, timeout=60)
    text = (c.work / "gpus.out").read_text()
    got = dict(re.findall(r"^(A|B|ALL|too-many)=(\S*)$", text, re.M))
    a, b = set(got["A"].split(",")), set(got["B"].split(","))
    assert len(a) == 2 and len(b) == 2 and not a & b, text  # two disjoint pairs
    assert set(got["ALL"].split(",")) == a | b  # a default step sees them all
    assert got["too-many"] == "1"
    assert "Invalid generic resource (gres) specification" in text


def test_gpu_bind_gives_each_task_its_gpus(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "4", "--gpus", "2"])
    c.write("bind.sh", "#!/bin/bash\n"
            "srun -n4 -l --gpu-bind=single:2 printenv CUDA_VISIBLE_DEVICES\n"
            "srun -n2 -l --gpu-bind=map_gpu:1,0 printenv CUDA_VISIBLE_DEVICES\n")
    jid = c.sbatch("-n4", "--gpus=2", "-o", "bind.out", "bind.sh")
    c.wait_done(jid, timeout=60)
    lines = (c.work / "bind.out").read_text().splitlines()
    # two tasks share each GPU, in order; then the map, task by task
    assert sorted(lines[:4]) == ["0: 0", "1: 0", "2: 1", "3: 1"], lines
    assert sorted(lines[4:]) == ["0: 1", "1: 0"], lines


def test_ntasks_per_gpu(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "4", "--gpus", "2"])
    c.write("pergpu.sh", "#!/bin/bash\n"
            "srun -c1 -l --ntasks-per-gpu=2 printenv CUDA_VISIBLE_DEVICES\n")
    # one task asked for the job: the step's four come from its two GPUs
    jid = c.sbatch("-n1", "-c4", "--gpus=2", "-o", "pergpu.out", "pergpu.sh")
    c.wait_done(jid, timeout=60)
    lines = (c.work / "pergpu.out").read_text().splitlines()
    # two tasks for each of the job's two GPUs, each task bound to one
    assert sorted(lines) == ["0: 0", "1: 0", "2: 1", "3: 1"], lines
