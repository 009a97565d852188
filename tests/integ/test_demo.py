"""`drover demo`: a local cluster with fake GPUs and a three-job pipeline
(prep -> 2-GPU training -> eval, chained with afterok), run in its short form
as `make demo` runs it in full. Every job must complete, the training job
must get two GPUs, its checkpoints must be on disk, and the cluster must be
down afterwards."""

import re

from conftest import BIN, pid_alive, run

STEPS = 3  # checkpoints the short form writes


def table(out):
    """The demo's job table as {name: row dict}."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("JOBID "))
    cols = lines[head].split()
    rows = {}
    for line in lines[head + 1:head + 4]:
        # GPUS may read "2 (0,1)": split it off by its position.
        m = re.match(r"(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(-|\d+(?: \([\d,]+\))?)\s+(\S+)\s+(\S+)$",
                     line)
        assert m, f"bad table row {line!r} in\n{out}"
        rows[m.group(2)] = dict(zip(cols, m.groups()))
    return rows


def live_pids(dir):
    """Pids from the cluster's pid files that still run."""
    pids = []
    for pf in (dir / "run").glob("*.pid"):
        try:
            pid = int(pf.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if pid_alive(pid):
            pids.append((pf.name, pid))
    return pids


def shepherds_left(dir):
    left = []
    for jobdir in (dir / "spool").glob("*/job.*"):
        try:
            pid = int((jobdir / "shepherd.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if pid_alive(pid):
            left.append((jobdir.name, pid))
    return left


def test_demo_runs_the_pipeline_and_stops_its_cluster(make_cluster):
    c = make_cluster(start=False)  # a fresh dir, cleaned up by the fixture
    rc, out, err = c.drover("demo", "--short", "--dir", c.dir, timeout=150)
    assert rc == 0, f"demo failed rc={rc}\nstdout: {out}\nstderr: {err}"

    rows = table(out)
    assert set(rows) == {"prep", "train", "eval"}, out
    for name, row in rows.items():
        assert row["STATE"] == "COMPLETED", out
        assert row["EXITCODE"] == "0:0", out
        assert re.fullmatch(r"n[12]", row["NODE"]), out
    assert rows["train"]["GPUS"].split()[0] == "2", out
    ids = [int(rows[n]["JOBID"]) for n in ("prep", "train", "eval")]
    assert ids == sorted(ids), out

    work = c.dir / "pipeline"
    train_out = (work / f"train-{ids[1]}.out").read_text()
    m = re.search(r"CUDA_VISIBLE_DEVICES=(\S*)", train_out)
    assert m and len(m.group(1).split(",")) == 2, train_out
    for i in range(1, STEPS + 1):
        ckpt = work / "ckpt" / f"checkpoint-{i}"
        assert ckpt.is_file() and f"epoch={i} " in ckpt.read_text()
    assert (work / "data" / "dataset.csv").stat().st_size > 0
    eval_out = (work / f"eval-{ids[2]}.out").read_text()
    assert f"ckpt/checkpoint-{STEPS}" in eval_out, eval_out
    assert (work / "eval-accuracy.txt").read_text().strip()
    # Plain progress lines on a pipe (no terminal), the table on stdout.
    assert "prep" in err and "\r" not in err, err

    assert live_pids(c.dir) == [], live_pids(c.dir)
    assert shepherds_left(c.dir) == []


def test_demo_keep_leaves_a_usable_cluster(make_cluster):
    c = make_cluster(start=False)
    rc, out, err = c.drover("demo", "--short", "--keep", "--dir", c.dir, timeout=150)
    assert rc == 0, f"demo failed rc={rc}\nstdout: {out}\nstderr: {err}"
    assert f'drover up --dir {c.dir})"' in out and "drover down --dir" in out, out
    assert live_pids(c.dir), "--keep stopped the cluster"
    c.up()  # what the printed hint does: starts nothing, sets the env
    assert [c.state(j) for j in (1, 2, 3)] == ["COMPLETED"] * 3
    rc, _, err = c.down()
    assert rc == 0, err
    assert live_pids(c.dir) == []


def test_demo_refuses_a_dir_holding_a_cluster(cluster):
    rc, out, err = cluster.drover("demo", "--short", "--dir", cluster.dir)
    assert rc == 1 and "already holds a cluster" in err, out + err
    # The cluster it refused is untouched.
    assert cluster.pid("ctld") and pid_alive(cluster.pid("ctld"))
    assert "JOBID" in cluster.ok("squeue")


def test_demo_help_and_usage_errors():
    rc, out, err = run([BIN / "drover", "demo", "--help"])
    assert rc == 0 and out.startswith("Usage: drover demo"), out + err
    rc, out, err = run([BIN / "drover", "demo", "--version"])
    assert rc == 0 and out.startswith("drover "), out + err
    rc, out, err = run([BIN / "drover", "demo", "--bogus"])
    assert rc == 2 and "bogus" in err and out == ""
    rc, out, err = run([BIN / "drover", "demo", "extra"])
    assert rc == 2 and "extra" in err
