"""Cgroups, every controller (issue 14, item 1): cgroup.conf beside
drover.conf; a job's cpuset holds the CPUs the scheduler chose, its memory
limit stops it alone, PidsLimit stops a fork bomb of the job only, and
ConstrainDevices lets a job open the GPU device files it holds and no
other. A bad cgroup.conf is refused with file:line; a missing or read-only
cgroup tree is a warning, and jobs still run.

Needs root and this host's writable v1 controllers (memory, cpuset,
devices, pids) for the enforcement tests: each says why when it skips.
cgroup v2 runs in tests/unit/test_cgroup.c (a real cgroup2 mount for
create, procs and the BPF device program; a directory laid out like
cgroup2 for the limits)."""

import os
import pathlib
import re
import subprocess

import pytest

from conftest import BIN, run, wait_for

CG = pathlib.Path("/sys/fs/cgroup")


def v1_controller(name, probe):
    """Whether the v1 controller is mounted writable here (as root)."""
    d = CG / name
    return os.geteuid() == 0 and (d / probe).exists() and os.access(d, os.W_OK)


ROOT = os.geteuid() == 0
HAS = {n: v1_controller(n, p) for n, p in [("memory", "memory.limit_in_bytes"),
                                           ("cpuset", "cpuset.cpus"),
                                           ("devices", "devices.allow"),
                                           ("pids", "cgroup.procs")]}


def needs(*names):
    missing = [n for n in names if not HAS[n]]
    return pytest.mark.skipif(bool(missing), reason="needs root and writable v1 "
                              f"controllers: {', '.join(missing)} missing")


def cluster_with(make_cluster, cgroup_conf, nodes=1, extra=(), sets=()):
    """A cluster whose config directory holds cgroup_conf as cgroup.conf."""
    c = make_cluster(nodes=nodes, start=False, sets=sets)
    (c.dir / "cgroup.conf").write_text(cgroup_conf)
    c.up(extra)
    return c


def wait_file(c, name, pattern, timeout=30):
    p = c.work / name
    return wait_for(lambda: p.exists() and re.search(pattern, t := p.read_text(), re.M)
                    and t, timeout, what=f"{pattern!r} in {name}")


# A job that says which CPUs it may use, then waits for the test's word so
# that two of them hold their CPUs at once.
CPUS_SH = ("#!/bin/bash\n"
           "echo \"NPROC=$(nproc)\"\n"
           "grep Cpus_allowed_list /proc/self/status | tr -d '\\t '\n"
           "while [ ! -e go ]; do sleep 0.1; done\n")


@needs("memory", "cpuset")
def test_one_cpu_jobs_see_one_cpu_each_and_not_the_same(make_cluster):
    c = cluster_with(make_cluster, "ConstrainCores=yes\n", extra=("--cpus", "2"))
    assert "ConstrainCores=yes" in c.log("n1"), c.log("n1")
    c.write("cpus.sh", CPUS_SH)
    a = c.sbatch("-n1", "-o", "a.out", "cpus.sh")
    b = c.sbatch("-n1", "-o", "b.out", "cpus.sh")
    seen = []
    for name in ("a.out", "b.out"):
        text = wait_file(c, name, r"^Cpus_allowed_list:")
        assert re.search(r"^NPROC=1$", text, re.M), text
        seen.append(re.search(r"^Cpus_allowed_list:(\S+)$", text, re.M).group(1))
    assert seen[0] != seen[1], seen
    assert set(seen) == {"0", "1"}, seen
    # scontrol show job -d says which, as Slurm's detail line does
    detail = c.ok("scontrol", "show", "job", "-d", str(a))
    m = re.search(r"^\s+Nodes=n1 CPU_IDs=(\S+) Mem=\d+ GRES=", detail, re.M)
    assert m, detail
    (c.work / "go").write_text("")
    for jid in (a, b):
        assert c.wait_done(jid, timeout=30)["JobState"] == "COMPLETED"


@needs("memory", "cpuset")
def test_an_srun_step_gets_its_jobs_cpus_in_a_child_cpuset(make_cluster):
    c = cluster_with(make_cluster, "ConstrainCores=yes\n", extra=("--cpus", "2"))
    c.write("steps.sh", "#!/bin/bash\n"
            "echo BATCH=$(grep Cpus_allowed_list /proc/self/status | cut -f2)\n"
            "srun bash -c 'echo STEP=$(grep Cpus_allowed_list /proc/self/status "
            "| cut -f2) $(grep :cpuset: /proc/self/cgroup)'\n")
    jid = c.sbatch("-n1", "-o", "steps.out", "steps.sh")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    text = (c.work / "steps.out").read_text()
    batch = re.search(r"^BATCH=(\d)$", text, re.M).group(1)
    m = re.search(r"^STEP=(\S+) \d+:cpuset:/drover_n1_\d+/job_(\d+)/step_0$", text, re.M)
    assert m and m.group(1) == batch and m.group(2) == str(jid), text


@needs("memory", "cpuset")
def test_without_constrain_cores_a_job_sees_every_cpu(make_cluster):
    c = cluster_with(make_cluster, "ConstrainCores=no\n", extra=("--cpus", "2"))
    c.write("cpus.sh", CPUS_SH.replace("while", "true ||"))
    jid = c.sbatch("-n1", "-o", "a.out", "cpus.sh")
    c.wait_done(jid)
    text = (c.work / "a.out").read_text()
    assert re.search(rf"^NPROC={os.cpu_count()}$", text, re.M), text


@needs("memory", "cpuset")
def test_a_node_with_more_cpus_than_the_host_maps_them(make_cluster):
    host = len(os.sched_getaffinity(0))
    c = cluster_with(make_cluster, "ConstrainCores=yes\n",
                     extra=("--cpus", str(host * 2)))
    assert f"job cpusets map the node's CPU i to host CPU i mod {host}" in c.log("n1")
    c.write("cpus.sh", CPUS_SH.replace("while", "true ||"))
    jid = c.sbatch("-n1", "-c", str(host * 2), "-o", "all.out", "cpus.sh")
    c.wait_done(jid)
    text = (c.work / "all.out").read_text()
    assert re.search(rf"^NPROC={host}$", text, re.M), text


ALLOC = ('python3 -c "x = bytearray({mb} * 1024 * 1024); '
         'x[::4096] = b\'1\' * len(x[::4096]); print(\'alive\', \'after\')"')


@needs("memory")
def test_a_job_over_its_memory_dies_alone(make_cluster):
    c = cluster_with(make_cluster, "ConstrainRAMSpace=yes\n", extra=("--cpus", "2"))
    c.write("hog.sh", "#!/bin/bash\nwhile [ ! -e go ]; do sleep 0.1; done\n"
            + ALLOC.format(mb=300) + "\n")
    c.write("calm.sh", "#!/bin/bash\nwhile [ ! -e go ]; do sleep 0.1; done\n"
            + ALLOC.format(mb=20) + "\nsleep 1\n" + ALLOC.format(mb=20) + "\n")
    hog = c.sbatch("--mem=100M", "-o", "hog.out", "hog.sh")
    calm = c.sbatch("--mem=100M", "-o", "calm.out", "calm.sh")
    for jid in (hog, calm):
        c.wait_state(jid, "RUNNING")
    assert c.show_job(hog)["NodeList"] == c.show_job(calm)["NodeList"] == "n1"
    (c.work / "go").write_text("")
    assert c.wait_done(hog, timeout=60)["JobState"] == "OUT_OF_MEMORY"
    assert c.wait_done(calm, timeout=60)["JobState"] == "COMPLETED"
    assert (c.work / "calm.out").read_text().count("alive after") == 2


# Forks children that sleep until the count is reached or fork fails;
# prints how many it had, then lets them go.
FORKS = r'''#!/usr/bin/python3
import os, sys, time
want = int(sys.argv[1])
kids = []
try:
    for _ in range(want):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
except OSError as e:
    print("fork failed:", e.strerror, flush=True)
print(f"{sys.argv[2]}={len(kids)}", flush=True)
if len(sys.argv) > 3:
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.1)
for k in kids:
    os.kill(k, 9)
    os.waitpid(k, 0)
'''


@needs("memory", "pids")
def test_pids_limit_stops_a_fork_bomb_of_that_job_only(make_cluster):
    c = cluster_with(make_cluster, "PidsLimit=30\n", extra=("--cpus", "2"))
    assert "PidsLimit=30" in c.log("n1")
    c.write("forks.py", FORKS)
    bomb = c.sbatch("-o", "bomb.out", "--wrap", "./forks.py 500 BOMB go")
    text = wait_file(c, "bomb.out", r"^BOMB=\d+$")
    # the job's shell, python and its children: 30 in all
    n = int(re.search(r"^BOMB=(\d+)$", text, re.M).group(1))
    assert 20 <= n < 30 and "fork failed" in text, text
    # while the bomb holds its 30, a neighbour job forks freely ...
    calm = c.sbatch("-o", "calm.out", "--wrap", "./forks.py 25 CALM")
    assert c.wait_done(calm, timeout=30)["JobState"] == "COMPLETED"
    assert "CALM=25" in (c.work / "calm.out").read_text()
    # ... and so does the node itself
    assert subprocess.run(["python3", str(c.work / "forks.py"), "60", "HOST"],
                          capture_output=True, text=True).stdout.strip() == "HOST=60"
    (c.work / "go").write_text("")
    assert c.wait_done(bomb, timeout=30)["JobState"] == "COMPLETED"


# Opens each device file named: "ENXIO" (allowed: the cgroup let it through
# to a driver that is not there) or "EPERM" (denied by the cgroup).
OPEN = r'''#!/usr/bin/python3
import errno, os, sys
for p in sys.argv[1:]:
    try:
        os.close(os.open(p, os.O_RDONLY))
        print(p, "OPEN")
    except OSError as e:
        print(os.path.basename(p), errno.errorcode[e.errno])
'''


@needs("memory", "devices")
def test_a_job_opens_the_gpu_it_holds_and_not_the_other(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.work.mkdir(exist_ok=True)
    # stand-in GPUs: a char major the kernel leaves to local use, no driver
    for i in range(2):
        os.mknod(c.work / f"gpu{i}", 0o666 | 0o20000, os.makedev(240, i))
    (c.dir / "cgroup.conf").write_text(
        f"ConstrainDevices=yes\nGpuDeviceFiles={c.work}/gpu[0-1]\n")
    c.up(("--gpus", "2"))
    c.write("open.py", OPEN)
    jid = c.sbatch("--gpus=1", "-o", "open.out", "--wrap",
                   f"echo GPUS=$SLURM_JOB_GPUS; ./open.py {c.work}/gpu0 {c.work}/gpu1 /dev/null")
    c.wait_done(jid)
    text = (c.work / "open.out").read_text()
    held = re.search(r"^GPUS=(\d)$", text, re.M).group(1)
    other = "1" if held == "0" else "0"
    assert f"gpu{held} ENXIO" in text, text
    assert f"gpu{other} EPERM" in text, text
    assert "/dev/null OPEN" in text, text
    # outside any job both are reachable (denied only in the job's cgroup)
    rc, out, _ = run(["python3", c.work / "open.py", c.work / "gpu0", c.work / "gpu1"])
    assert "EPERM" not in out, out


def test_bad_cgroup_conf_is_refused_with_file_and_line(cluster, tmp_path):
    conf = tmp_path / "drover.conf"
    conf.write_text(cluster.conf.read_text())
    cg = tmp_path / "cgroup.conf"
    for text, msg in [
            ("ConstrainCores=yes\nConstrainCore=yes\n",
             "2: Parsing error at unrecognized key: ConstrainCore "
             "(did you mean ConstrainCores?)"),
            ("\nAllowedRAMSpace=120\n",
             "2: AllowedRAMSpace: '120' is not a percentage (0-100)"),
            ("PidsLimit=lots\n", "1: PidsLimit: "),
            ("CgroupPlugin=cgroup/v3\n",
             "1: CgroupPlugin: 'cgroup/v3' is not a valid value")]:
        cg.write_text(text)
        rc, out, err = run([BIN / "drover-ctld", "-t", "-f", conf])
        assert rc == 1 and err.count("\n") == 1, err
        assert err.startswith(f"drover-ctld: error: {cg}:{msg}"), err
    # Slurm's other cgroup.conf keys load
    cg.write_text("CgroupAutomount=yes\nMinRAMSpace=30\nConstrainKmemSpace=no\n"
                  "ConstrainSwapSpace=yes\nAllowedSwapSpace=10\nMaxRAMPercent=98.5\n")
    assert run([BIN / "drover-ctld", "-t", "-f", conf])[0] == 0


def test_drover_conf_cgroup_keys_warn_and_still_work(make_cluster):
    c = make_cluster(nodes=1, sets={"CgroupPlugin": "disabled"})
    log = c.log("n1")
    assert re.search(r"drover\.conf:\d+: CgroupPlugin belongs in cgroup\.conf", log), log
    assert "CgroupPlugin=disabled: jobs run without cgroups" in log, log
    jid = c.sbatch("--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"


def test_missing_cgroup_tree_warns_and_jobs_run(make_cluster, tmp_path):
    c = cluster_with(make_cluster, f"CgroupMountpoint={tmp_path}/none\n")
    assert re.search(rf"no usable cgroup memory controller under {tmp_path}/none",
                     c.log("n1")), c.log("n1")
    jid = c.sbatch("--mem=50M", "--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"


@pytest.mark.skipif(not ROOT, reason="needs root to mount a read-only tmpfs")
def test_read_only_cgroup_tree_warns_and_jobs_run(make_cluster, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", ro], check=True)
    try:
        (ro / "memory").mkdir()
        (ro / "memory" / "memory.limit_in_bytes").write_text("0\n")
        subprocess.run(["mount", "-o", "remount,ro", ro], check=True)
        c = cluster_with(make_cluster, f"CgroupMountpoint={ro}\n")
        assert re.search(rf"no usable cgroup memory controller under {ro} "
                         r"\(Permission denied", c.log("n1")), c.log("n1")
        jid = c.sbatch("--mem=50M", "--wrap", "true")
        assert c.wait_done(jid)["JobState"] == "COMPLETED"
        c.down()
    finally:
        subprocess.run(["umount", ro])
