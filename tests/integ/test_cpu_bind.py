"""srun --cpu-bind binds each task within its step's CPUs (issue 14, item 1).

cores and threads give task i of a node its block of -c CPUs, rank the
i-th, map_cpu and mask_cpu the i-th entry of their list; verbose prints
Slurm's line; a map outside the step's CPUs fails the step with Slurm's
"CPU binding outside of job step allocation"; none leaves the task as it
is. The tasks' SLURM_CPU_BIND* say what was asked. On a 2-CPU node, with
and (as root) without ConstrainCores."""

import os
import re
import shutil

import pytest

from conftest import Cluster

CPUS = "grep Cpus_allowed_list /proc/self/status | tr -d '\\t '"


def allowed(c, *srun_args):
    out = c.ok("srun", "-l", *srun_args, "bash", "-c", CPUS)
    got = dict(re.findall(r"^(\d+): Cpus_allowed_list:(\S+)$", out, re.M))
    return [got[k] for k in sorted(got, key=int)]


@pytest.fixture(scope="module")
def two_cpus():
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs a host with 2 CPUs")
    c = Cluster(nodes=1)
    try:
        c.up(extra=("--cpus", "2"))
        yield c
    finally:
        c.down()
        c.kill_leftovers()
        shutil.rmtree(c.dir, ignore_errors=True)


def test_cores_rank_map_and_mask(two_cpus):
    c = two_cpus
    assert allowed(c, "-n2", "--cpu-bind=cores") == ["0", "1"]
    assert allowed(c, "-n2", "--cpu-bind=threads") == ["0", "1"]
    assert allowed(c, "-n2", "--cpu-bind=rank") == ["0", "1"]
    assert allowed(c, "-n2", "--cpu-bind=map_cpu:1,0") == ["1", "0"]
    assert allowed(c, "-n2", "--cpu-bind=mask_cpu:0x2,0x1") == ["1", "0"]
    assert allowed(c, "-n1", "-c2", "--cpu-bind=cores") == ["0-1"]
    assert allowed(c, "-n2", "--cpu-bind=none") == ["0-1", "0-1"]
    assert allowed(c, "-n2") == ["0-1", "0-1"]


def test_verbose_prints_slurms_line_and_the_env_says_what_was_asked(two_cpus):
    c = two_cpus
    rc, out, err = c.run("srun", "-n2", "--cpu-bind=verbose,map_cpu:1,0", "bash", "-c",
                         "echo $SLURM_CPU_BIND_VERBOSE $SLURM_CPU_BIND_TYPE "
                         "$SLURM_CPU_BIND_LIST")
    assert rc == 0, err
    assert out.splitlines() == ["verbose map_cpu: 1,0"] * 2
    lines = sorted(re.findall(r"^cpu-bind=MASK - n1, task +(\d) +(\d) \[\d+\]: mask 0x(\d) set$",
                              err, re.M))
    assert lines == [("0", "0", "2"), ("1", "1", "1")], err


def test_a_map_outside_the_steps_cpus_fails_the_step(two_cpus):
    c = two_cpus
    rc, out, err = c.run("srun", "-n1", "--cpu-bind=map_cpu:63", "true")
    assert rc != 0
    assert "CPU binding outside of job step allocation" in err, err


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root for cpusets")
def test_binding_stays_within_a_constrained_jobs_cpus(make_cluster):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs a host with 2 CPUs")
    c = make_cluster(nodes=1, start=False)
    (c.dir / "cgroup.conf").write_text("ConstrainCores=yes\n")
    c.up(("--cpus", "2"))
    # a 1-CPU allocation: its one CPU is all a task may be bound to
    script = c.write("in_alloc.sh", f"""#!/bin/bash
mine=$(srun -n1 bash -c "{CPUS}" | cut -d: -f2)
other=$((1 - mine))
echo "mine=$mine"
srun -n1 --cpu-bind=map_cpu:$mine bash -c "{CPUS}"
srun -n1 --cpu-bind=map_cpu:$other true && echo other-ok || echo other-refused
""")
    rc, out, err = c.run("salloc", "-n1", str(script))
    assert rc == 0, err
    mine = re.search(r"^mine=(\d)$", out, re.M).group(1)
    assert f"Cpus_allowed_list:{mine}" in out
    assert "other-refused" in out, out
    assert "CPU binding outside of job step allocation" in err, err
