"""srun --mpi=pmix: Open MPI programs launched by srun itself (Slurm's
mpi/pmix). Every step shepherd runs a PMIx server for its node's tasks and
the servers' fences meet at srun (docs/launchers.md). The cluster is two
nodes of two CPUs on one host, hence the loopback-only recipe of
test_mpi.py."""

import shutil
import subprocess

import pytest

from test_mpi import HELLO_C, RECIPE


def built_with_pmix(bin_dir):
    try:
        out = subprocess.run([str(bin_dir / "srun"), "--mpi=list"],
                             capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return False
    return "\tpmix\n" in out


@pytest.fixture
def pmix_cluster(make_cluster):
    if not shutil.which("mpicc"):
        pytest.skip("Open MPI (mpicc) not installed: scripts/install-deps "
                    "installs openmpi-bin libopenmpi-dev")
    c = make_cluster(nodes=2, start=False)
    if not built_with_pmix(c.bin):
        pytest.skip("this build has no PMIx (libpmix-dev missing when meson ran)")
    c.up(extra=("--cpus", "2"))
    c.env["PATH"] = f"{c.bin}:{c.env['PATH']}"
    return c


def hello(c):
    src = c.work / "hello.c"
    src.write_text(HELLO_C)
    exe = c.work / "hello"
    rc, out, err = c.run("mpicc", "-o", exe, src, timeout=120)
    assert rc == 0, f"mpicc failed: {out}{err}"
    return exe


def run_job(c, name, body, header="-N2 --ntasks-per-node=2", timeout=90):
    c.write(name, "#!/bin/bash\n"
            f"#SBATCH {header} -o {name}.out\n"
            + RECIPE + body + 'echo "srun_rc=$?"\n')
    jid = c.sbatch(name)
    job = c.wait_done(jid, timeout=timeout)
    out = (c.work / f"{name}.out").read_text()
    assert job["JobState"] == "COMPLETED", (job, out)
    assert "srun_rc=0\n" in out, out
    return out


def test_mpi_list_names_pmix(pmix_cluster):
    rc, out, err = pmix_cluster.run(pmix_cluster.bin / "srun", "--mpi=list")
    assert rc == 0 and out == "MPI plugin types are...\n\tnone\n\tpmix\n", out + err


def test_srun_pmix_allreduce_on_two_nodes(pmix_cluster):
    c = pmix_cluster
    exe = hello(c)
    out = run_job(c, "pmix2.sh", f"srun --mpi=pmix {exe}\n")
    ranks = sorted(line for line in out.splitlines() if line.startswith("rank "))
    assert ranks == [f"rank {r}/4 sum=6" for r in range(4)], out


def test_srun_pmix_two_tasks_on_one_node(pmix_cluster):
    c = pmix_cluster
    exe = hello(c)
    out = run_job(c, "pmix1.sh", f"srun --mpi=pmix -n2 -N1 {exe}\n")
    ranks = sorted(line for line in out.splitlines() if line.startswith("rank "))
    assert ranks == [f"rank {r}/2 sum=1" for r in range(2)], out


def test_srun_pmix_gives_each_task_its_rank(pmix_cluster):
    c = pmix_cluster
    out = run_job(c, "ranks.sh", "srun --mpi=pmix -l printenv PMIX_RANK\n")
    lines = sorted(line for line in out.splitlines() if ": " in line)
    assert lines == [f"{r}: {r}" for r in range(4)], out


def test_slurm_mpi_type_env_selects_pmix(pmix_cluster):
    c = pmix_cluster
    out = run_job(c, "envsel.sh",
                  "SLURM_MPI_TYPE=pmix srun -n1 -N1 printenv PMIX_RANK\n")
    assert "0\n" in out, out


ABORT_C = r"""
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 3)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD); /* the others wait for rank 3 forever */
    printf("rank %d passed the barrier\n", rank);
    MPI_Finalize();
    return 0;
}
"""


def test_mpi_abort_ends_the_whole_step(pmix_cluster):
    c = pmix_cluster
    src = c.work / "abort.c"
    src.write_text(ABORT_C)
    rc, out, err = c.run("mpicc", "-o", c.work / "abort", src, timeout=120)
    assert rc == 0, f"mpicc failed: {out}{err}"
    name = "abort.sh"
    c.write(name, "#!/bin/bash\n"
            f"#SBATCH -N2 --ntasks-per-node=2 -o {name}.out\n"
            + RECIPE + f"srun --mpi=pmix {c.work / 'abort'}\n"
            'echo "srun_rc=$?"\n')
    job = c.wait_done(c.sbatch(name), timeout=90)
    out = (c.work / f"{name}.out").read_text()
    assert "passed the barrier" not in out, out
    assert "srun_rc=0\n" not in out and "srun_rc=" in out, (job, out)
