"""The sbatch options of this issue, end to end on a real cluster: --export,
-D/--chdir, -e, --comment, -t, -p, -N (the batch script runs on the first
node), -H with scontrol release."""

from conftest import wait_for


def env_of(path):
    return dict(l.split("=", 1) for l in path.read_text().splitlines() if "=" in l)


def test_export_none_all_and_list(cluster):
    c = cluster
    env = dict(c.env, DRV_TEST_VAR="from-submit")
    jobs = {}
    for mode in ("ALL", "NONE", "ALL,EXTRA='a b'", "EXTRA=only"):
        rc, out, err = c.run("sbatch", "--parsable", f"--export={mode}", "-o", "env-%j.txt",
                             "--wrap", "env", env=env)
        assert rc == 0, err
        jobs[mode] = int(out)
    for jid in jobs.values():
        assert c.wait_done(jid)["JobState"] == "COMPLETED"
    got = {m: env_of(c.work / f"env-{j}.txt") for m, j in jobs.items()}
    assert got["ALL"]["DRV_TEST_VAR"] == "from-submit"
    assert "DRV_TEST_VAR" not in got["NONE"]
    assert got["NONE"]["SLURM_JOB_ID"] == str(jobs["NONE"])
    assert got["ALL,EXTRA='a b'"]["EXTRA"] == "a b"
    assert got["ALL,EXTRA='a b'"]["DRV_TEST_VAR"] == "from-submit"
    assert got["EXTRA=only"]["EXTRA"] == "only"
    assert "DRV_TEST_VAR" not in got["EXTRA=only"]


def test_chdir_error_file_comment_and_time_limit(cluster):
    c = cluster
    sub = c.work / "sub"
    sub.mkdir()
    c.write("job.sh", "#!/bin/sh\npwd\necho oops >&2\n")
    jid = c.sbatch("-D", str(sub), "-e", "err-%j.txt", "--comment", "my note",
                   "-t", "1-2:03:04", "-p", "debug", str(c.work / "job.sh"))
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED"
    assert job["TimeLimit"] == "1-02:03:04"
    assert job["Partition"] == "debug"
    assert "Comment=my note" in c.ok("scontrol", "show", "job", str(jid))
    assert (sub / f"slurm-{jid}.out").read_text() == f"{sub}\n"
    assert (sub / f"err-{jid}.txt").read_text() == "oops\n"


def test_multi_node_job_runs_its_script_on_the_first_node(make_cluster):
    c = make_cluster(nodes=3)
    jid = c.sbatch("-N", "2", "--wrap", "echo $SLURMD_NODENAME $SLURM_JOB_NUM_NODES "
                   "$SLURM_JOB_NODELIST")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED"
    assert job["NodeList"] == "n[1-2]"
    assert (c.work / f"slurm-{jid}.out").read_text() == "n1 2 n[1-2]\n"


def test_held_job_waits_until_released(cluster):
    c = cluster
    jid = c.sbatch("-H", "--wrap", "echo released")
    job = c.show_job(jid)
    assert job["JobState"] == "PENDING" and job["Reason"] == "JobHeldUser", job
    out = c.ok("squeue", "-h", "-j", str(jid), "-o", "%t %R")
    assert out == "PD (JobHeldUser)\n"
    c.ok("scontrol", "release", str(jid))
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    wait_for(lambda: (c.work / f"slurm-{jid}.out").exists(), 5, what="output")
    assert (c.work / f"slurm-{jid}.out").read_text() == "released\n"
