"""Open MPI's mpirun inside a Drover batch job (see docs/launchers.md).

mpirun (Open MPI 4.1) sees Slurm through SLURM_JOBID, SLURM_NODELIST and
SLURM_TASKS_PER_NODE and starts one orted per node with
`srun --ntasks-per-node=1 --kill-on-bad-exit --mpi=none --ntasks=2 orted ...`,
so these tests exercise Drover's srun, step launch and step environment
(SLURM_NODEID, SLURMD_NODENAME) the way a real MPI user does. The cluster
is two nodes of two CPUs on one host, hence the loopback-only, no-shared-
memory recipe below."""

import os
import shutil

import pytest

pytestmark = pytest.mark.skipif(
    not shutil.which("mpirun") or not shutil.which("mpicc"),
    reason="Open MPI (mpirun, mpicc) not installed: scripts/install-deps installs "
           "openmpi-bin libopenmpi-dev")

# Root needs the two ALLOW variables; both "nodes" share one host, so the
# shared-memory transport (vader) would mix their segments: TCP on lo only.
RECIPE = ("export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n"
          "export OMPI_MCA_btl=self,tcp\n"
          "export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo\n")

HELLO_C = r"""
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d/%d sum=%d\n", rank, size, sum);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture
def mpi_cluster(make_cluster):
    c = make_cluster(nodes=2, start=False)
    c.up(extra=("--cpus", "2"))
    # The job inherits the submitter's environment: Drover's srun must come
    # first on its PATH, or mpirun would find another srun (or none).
    c.env["PATH"] = f"{c.bin}:{c.env['PATH']}"
    return c


def run_job(c, name, body, timeout=90):
    c.write(name, "#!/bin/bash\n"
            f"#SBATCH -N2 --ntasks-per-node=2 -o {name}.out\n"
            + RECIPE +
            'echo "srun=$(command -v srun)"\n'
            + body +
            'echo "mpirun_rc=$?"\n')
    jid = c.sbatch(name)
    job = c.wait_done(jid, timeout=timeout)
    out = (c.work / f"{name}.out").read_text()
    return jid, job, out


def check_common(c, jid, job, out):
    assert job["JobState"] == "COMPLETED", (job, out)
    assert job["ExitCode"] == "0:0", (job, out)
    assert f"srun={c.bin}/srun\n" in out, out
    assert "mpirun_rc=0\n" in out, out
    # mpirun's daemons ran as step 0 of the job, one task per node.
    rc, acct, err = c.run(c.bin / "sacct", "-j", str(jid), "-n", "-P",
                          "-o", "JobID,JobName,NodeList")
    assert rc == 0, err
    assert f"{jid}.0|orted|n[1-2]" in acct.splitlines(), acct


def test_mpirun_places_two_ranks_per_node(mpi_cluster):
    c = mpi_cluster
    jid, job, out = run_job(c, "names.sh",
                            "mpirun -np 4 sh -c 'echo rank on $SLURMD_NODENAME'\n")
    check_common(c, jid, job, out)
    names = sorted(line.split()[-1] for line in out.splitlines()
                   if line.startswith("rank on "))
    assert names == ["n1", "n1", "n2", "n2"], out


def test_mpi_allreduce_program(mpi_cluster):
    c = mpi_cluster
    src = c.work / "hello.c"
    src.write_text(HELLO_C)
    exe = c.work / "hello"
    rc, out, err = c.run("mpicc", "-o", exe, src, timeout=120)
    assert rc == 0, f"mpicc failed: {out}{err}"
    # No -np: mpirun takes the allocation's 4 slots (SLURM_TASKS_PER_NODE).
    jid, job, out = run_job(c, "allreduce.sh", f"mpirun {exe}\n")
    check_common(c, jid, job, out)
    ranks = sorted(line for line in out.splitlines() if line.startswith("rank "))
    assert ranks == [f"rank {r}/4 sum=6" for r in range(4)], out
