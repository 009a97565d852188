"""JobContainerType=job_container/tmpfs (issue 14, item 3): each job sees
its own /tmp and /dev/shm, on every node and in every step, owned by its
user; they are gone at its end, what a killed noded left is removed when
the next one starts, and the host's /tmp is never touched. A bad
job_container.conf stops noded with one "file:line: what" line. Needs root
(mount namespaces); a noded that is not root says once that it runs
without.

The clusters live under /var/tmp, not /tmp: the job's /tmp hides the
host's, and their spool (the job scripts) must stay in sight."""

import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import uuid

import pytest

from conftest import wait_for

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="needs root (mount namespaces)")

# Writes its name into /tmp and /dev/shm, says it is ready, waits for the
# other job's word (both then run at once), and lists what it sees.
TWO_JOBS = """#!/bin/sh
me=$1 other=$2
echo "$me" > /tmp/$me.txt
touch /dev/shm/$me.shm
touch {work}/$me.ready
for i in $(seq 300); do [ -e {work}/$other.ready ] && break; sleep 0.1; done
{{ echo "tmp=$(ls -A /tmp | tr '\\n' ,)"
  echo "shm=$(ls -A /dev/shm | tr '\\n' ,)"
  echo "own=$(stat -c '%u %a' /tmp)"; }} > {work}/$me.part
mv {work}/$me.part {work}/$me.list  # whole, or not there
for i in $(seq 300); do [ -e {work}/$me.go ] && break; sleep 0.1; done
"""


def jc_cluster(make_cluster, nodes=1, conf=None, start=True):
    d = pathlib.Path(tempfile.mkdtemp(prefix="drv-", dir="/var/tmp"))
    c = make_cluster(nodes=nodes, start=False, dir=d,
                     sets={"JobContainerType": "job_container/tmpfs"})
    os.chmod(c.work, 0o777)
    c.base = c.dir / "jc"
    (c.dir / "job_container.conf").write_text(
        conf if conf is not None else f"AutoBasePath=true\nBasePath={c.base}/%n\n")
    if start:
        c.up()
    return c


def as_user(c, u, *cmd):
    return c.run(*u.prefix, *cmd, cwd=c.work)


def sbatch_as(c, u, *args):
    rc, out, err = as_user(c, u, "sbatch", "--parsable", *args)
    assert rc == 0, f"sbatch as {u.name}: rc={rc} {err}"
    return int(out.strip().split(";")[0])


def listing(path):
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@needs_root
def test_two_jobs_see_their_own_tmp_and_shm(make_cluster, test_users):
    host_mark = pathlib.Path("/tmp") / f"drv-host-{uuid.uuid4().hex}"
    host_mark.write_text("the host's\n")
    try:
        c = jc_cluster(make_cluster)
        assert "job_container/tmpfs: each job gets its own /tmp" in c.log("n1")
        script = c.write("two.sh", TWO_JOBS.format(work=c.work))
        u1, u2 = test_users[0], test_users[1]
        ka, kb = f"a{uuid.uuid4().hex[:8]}", f"b{uuid.uuid4().hex[:8]}"
        a = sbatch_as(c, u1, "-o", "a.out", str(script), ka, kb)
        b = sbatch_as(c, u2, "-o", "b.out", str(script), kb, ka)
        la = wait_for(lambda: (c.work / f"{ka}.list").exists() and
                      (c.work / f"{kb}.list").exists() and
                      listing(c.work / f"{ka}.list"), 60, what="both jobs' listings")
        lb = listing(c.work / f"{kb}.list")
        assert la["tmp"] == f"{ka}.txt," and lb["tmp"] == f"{kb}.txt,", (la, lb)
        assert la["shm"] == f"{ka}.shm," and lb["shm"] == f"{kb}.shm,", (la, lb)
        assert la["own"] == f"{u1.uid} 700" and lb["own"] == f"{u2.uid} 700", (la, lb)
        # what the job sees as /tmp is BasePath/n1/JOB/.tmp on the host
        private = c.base / "n1" / str(a) / ".tmp" / f"{ka}.txt"
        assert private.read_text() == f"{ka}\n"
        assert private.stat().st_uid == u1.uid
        (c.work / f"{ka}.go").touch()
        (c.work / f"{kb}.go").touch()
        for jid in (a, b):
            assert c.wait_done(jid, 60)["JobState"] == "COMPLETED"
        # gone at the end, namespace anchor and all
        wait_for(lambda: not (c.base / "n1" / str(a)).exists() and
                 not (c.base / "n1" / str(b)).exists(), 20,
                 what="the jobs' private dirs to be removed")
        mounts = pathlib.Path("/proc/self/mountinfo").read_text()
        assert str(c.base) not in mounts, mounts
        assert host_mark.read_text() == "the host's\n"
        for k in (ka, kb):
            assert not pathlib.Path(f"/tmp/{k}.txt").exists()
            assert not pathlib.Path(f"/dev/shm/{k}.shm").exists()
    finally:
        host_mark.unlink()


@needs_root
def test_steps_share_the_batch_steps_tmp(make_cluster):
    c = jc_cluster(make_cluster, nodes=2)
    # The job's private /tmp hides a build under /tmp (a CI clone): its srun
    # comes from the cluster's directory, under /var/tmp.
    srun = c.dir / "srun"
    shutil.copy(c.bin / "srun", srun)
    c.write("steps.sh", "#!/bin/sh\n"
            "echo from-batch > /tmp/batch.txt\n"
            f"{srun} -N1 -w n1 cat /tmp/batch.txt\n"
            f"{srun} -N1 -w n1 sh -c 'echo from-step0 > /tmp/step.txt'\n"
            f"{srun} -N1 -w n1 cat /tmp/step.txt\n"
            f"{srun} -N2 sh -c 'echo $(ls -A /tmp | tr \"\\n\" ,)'\n")
    jid = c.sbatch("-N2", "-o", "steps.out", "steps.sh")
    assert c.wait_done(jid, 60)["JobState"] == "COMPLETED"
    out = (c.work / "steps.out").read_text().splitlines()
    assert out[:2] == ["from-batch", "from-step0"], out
    # n1 (the batch node) shows the batch step's files; n2 its own, empty /tmp
    assert sorted(out[2:]) == ["", "batch.txt,step.txt,"], out
    for n in ("n1", "n2"):
        wait_for(lambda: not (c.base / n / str(jid)).exists(), 20,
                 what=f"job {jid}'s private dirs on {n} to be removed")


@needs_root
def test_leftovers_are_removed_when_noded_starts(make_cluster):
    c = jc_cluster(make_cluster, start=False)
    left = c.base / "n1" / "4242"
    (left / ".tmp" / "deep" / "er").mkdir(parents=True)
    (left / ".tmp" / "deep" / "er" / "file").write_text("x")
    (left / ".tmp" / "link").symlink_to(c.work)  # never followed
    (c.work / "keep").write_text("kept")
    (left / ".ns").touch()
    other = c.base / "n1" / "not-a-job"
    other.mkdir()
    c.up()
    wait_for(lambda: not left.exists(), 20, what="the leftover job dir to go")
    assert other.is_dir()
    assert (c.work / "keep").read_text() == "kept"
    assert "job=4242: removing the private dirs it left" in c.log("n1")
    # a job killed with its noded: its dir goes when noded comes back
    c.write("long.sh", "#!/bin/sh\ntouch /tmp/x\nsleep 300\n")
    jid = c.sbatch("-o", "long.out", "long.sh")
    c.wait_state(jid, "RUNNING")
    jdir = c.base / "n1" / str(jid)
    wait_for(lambda: (jdir / ".tmp" / "x").exists(), 20, what="the job's /tmp file")
    c.ok("scancel", str(jid))
    c.wait_done(jid, 30)
    wait_for(lambda: not jdir.exists(), 20, what="the cancelled job's dir to go")


@needs_root
def test_a_crashed_noded_and_shepherd_leave_nothing_behind(make_cluster):
    c = jc_cluster(make_cluster)
    jid = c.sbatch("--no-requeue", "-o", "crash.out", "--wrap", "touch /tmp/x; sleep 300")
    jdir = c.base / "n1" / str(jid)
    wait_for(lambda: (jdir / ".tmp" / "x").exists(), 30, what="the job's /tmp file")
    spool = c.dir / "spool" / "n1" / f"job.{jid}"
    shepherd = int((spool / "shepherd.pid").read_text().split()[0])
    pgid = int((spool / "pgid").read_text().split()[0])
    c.kill9("n1")
    # the shepherd first, so that it cannot record its job's end
    os.kill(shepherd, signal.SIGKILL)
    wait_for(lambda: not pathlib.Path(f"/proc/{shepherd}").exists(), 10,
             what="the shepherd to die")
    os.killpg(pgid, signal.SIGKILL)
    assert (jdir / ".tmp" / "x").exists()  # nobody left to remove it
    c.up()
    assert c.wait_done(jid, 30)["JobState"] == "NODE_FAIL"
    wait_for(lambda: not jdir.exists(), 20, what="the crashed job's dir to go")
    assert str(c.base) not in pathlib.Path("/proc/self/mountinfo").read_text()


def write_conf(d, jc_text, extra=""):
    (d / "drover.conf").write_text(
        "SlurmctldHost=localhost\n"
        "NodeName=n1 CPUs=1\n"
        "PartitionName=p Nodes=n1 Default=YES\n"
        f"JobContainerType=job_container/tmpfs\n{extra}")
    (d / "job_container.conf").write_text(jc_text)
    return d / "drover.conf"


def noded_check(c, conf):
    return subprocess.run([str(c.bin / "drover-noded"), "-t", "-N", "n1", "-f", str(conf)],
                          capture_output=True, text=True, timeout=30)


def test_bad_job_container_conf_stops_noded(make_cluster, tmp_path):
    c = make_cluster(nodes=1, start=False)
    conf = write_conf(tmp_path, "BasePath=/var/spool/jc\nBogus=1\n")
    r = noded_check(c, conf)
    jc = tmp_path / "job_container.conf"
    assert r.returncode == 1, r
    assert r.stderr == (f"drover-noded: error: {jc}:2: Parsing error at "
                        "unrecognized key: Bogus\n"), r.stderr
    jc.write_text("BasePath=/var/spool/jc InitScript=/etc/init.sh\n")
    r = noded_check(c, conf)
    assert r.returncode == 1 and r.stderr == (
        f"drover-noded: error: {jc}:1: InitScript=/etc/init.sh: Drover does not do "
        "what this asks; remove the line (docs/compat.md)\n"), r.stderr
    jc.unlink()
    r = noded_check(c, conf)
    assert r.returncode == 1 and f"cannot read {jc}" in r.stderr, r.stderr
    # a good one passes -t
    jc.write_text("BasePath=/var/spool/jc\n")
    r = noded_check(c, conf)
    assert r.returncode == 0, r.stderr


def test_bad_job_container_type_is_refused(make_cluster, tmp_path):
    c = make_cluster(nodes=1, start=False)
    conf = write_conf(tmp_path, "BasePath=/x\n",
                      extra="JobContainerType=job_container/bogus\n")
    r = noded_check(c, conf)
    assert r.returncode == 1 and r.stderr == (
        f"drover-noded: error: {conf}:5: JobContainerType: 'job_container/bogus' "
        "is not a valid value\n"), r.stderr


@needs_root
def test_drover_up_fails_on_a_bad_conf_and_base_path(make_cluster):
    c = jc_cluster(make_cluster, conf="BasePath=/x Dirs=/tmp,tmp\n", start=False)
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1",
                            "--set", "JobContainerType=job_container/tmpfs")
    assert rc != 0
    assert f"{c.dir}/job_container.conf:1: Dirs: 'tmp' is not an absolute path" in \
        out + err, out + err
    # BasePath missing and not to be made: noded does not start
    (c.dir / "job_container.conf").write_text(f"BasePath={c.dir}/nowhere\n")
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1",
                            "--set", "JobContainerType=job_container/tmpfs")
    assert rc != 0
    assert (f"job_container/tmpfs: BasePath {c.dir}/nowhere: No such file or "
            "directory (make it, or set AutoBasePath=true)") in out + err, out + err


def test_not_root_runs_without_and_says_so_once(make_cluster):
    if not ROOT:
        pytest.skip("needs root to run the cluster as nobody")
    c = make_cluster(nodes=1, start=False, owner="nobody",
                     sets={"JobContainerType": "job_container/tmpfs"})
    jc = c.dir / "job_container.conf"
    jc.write_text(f"BasePath=/var/tmp/{c.dir.name}-jc\n")  # never made
    os.chown(jc, 65534, 65534)
    c.up()
    jid = c.sbatch("-o", "plain.out", "--wrap", "echo ran")
    assert c.wait_done(jid, 30)["JobState"] == "COMPLETED"
    assert (c.work / "plain.out").read_text() == "ran\n"
    log = c.log("n1")
    assert log.count("job_container/tmpfs needs root: jobs run without their own "
                     "/tmp and /dev/shm") == 1, log


@needs_root
def test_a_namespace_that_cannot_be_made_fails_the_job_not_the_node(make_cluster):
    missing = f"/var/tmp/drv-missing-{uuid.uuid4().hex[:8]}"
    c = jc_cluster(make_cluster, start=False)
    (c.dir / "job_container.conf").write_text(
        f"AutoBasePath=true\nBasePath={c.base}/%n\nDirs=/tmp,{missing}\n")
    c.up()
    jid = c.sbatch("-o", "never.out", "--wrap", "echo ran")
    job = c.wait_done(jid, 30)
    assert job["JobState"] == "FAILED" and job["ExitCode"] == "1:0", job
    assert not (c.work / "never.out").exists()
    assert (f"job_container/tmpfs: cannot bind the job's own over {missing}: "
            "No such file or directory") in c.log("n1"), c.log("n1")
    rc, out, err = c.run("srun", "-N1", "true")
    assert rc != 0 and f"over {missing}" in err, (rc, out, err)
    # the node stays up for the next job, and nothing is left behind
    assert "IDLE" in c.show_node("n1")["State"]
    wait_for(lambda: not any((c.base / "n1").iterdir()), 20,
             what="the failed jobs' private dirs to go")


@needs_root
def test_drover_down_removes_the_dirs_of_the_jobs_it_kills(make_cluster):
    c = jc_cluster(make_cluster)
    jid = c.sbatch("-o", "long.out", "--wrap", "touch /tmp/x; sleep 300")
    jdir = c.base / "n1" / str(jid)
    wait_for(lambda: (jdir / ".tmp" / "x").exists(), 30, what="the job's /tmp file")
    assert (c.dir / "spool" / "n1" / "job_container").read_text() == f"{c.base}/n1\n"
    rc, out, err = c.down()
    assert rc == 0, err
    assert not jdir.exists(), list(jdir.rglob("*"))
    assert str(c.base) not in pathlib.Path("/proc/self/mountinfo").read_text()
