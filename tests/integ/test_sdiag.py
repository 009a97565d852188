"""sdiag (issue 12 item 2): ctld's real counters in Slurm 22.05's layout
(checked on a Slurm 22.05 sdiag): jobs submitted, started, completed,
canceled and failed move with what the cluster did; the main and backfill
scheduler's cycles are counted; every RPC is counted by its Slurm message
type and by user; -r resets them and says so."""

import os
import pwd
import re

from conftest import as_nobody_prefix, wait_for

ME = pwd.getpwuid(os.getuid()).pw_name
TIME = r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \((\d+)\)"

LAYOUT = [
    r"\*{55}", rf"sdiag output at {TIME}", rf"Data since      {TIME}", r"\*{55}",
    r"Server thread count:  \d+", r"Agent queue size:     \d+",
    r"Agent count:          \d+", r"Agent thread count:   \d+",
    r"DBD Agent queue size: \d+", "",
    r"Jobs submitted: \d+", r"Jobs started:   \d+", r"Jobs completed: \d+",
    r"Jobs canceled:  \d+", r"Jobs failed:    \d+", "",
    rf"Job states ts:  {TIME}", r"Jobs pending:   \d+", r"Jobs running:   \d+", "",
    r"Main schedule statistics \(microseconds\):",
    r"\tLast cycle:   \d+", r"\tMax cycle:    \d+", r"\tTotal cycles: \d+",
    r"\tMean cycle:   \d+", r"\tMean depth cycle:  \d+",
    r"\tLast queue length: \d+", "",
    r"Backfilling stats",
    r"\tTotal backfilled jobs \(since last slurm start\): \d+",
    r"\tTotal backfilled jobs \(since last stats cycle start\): \d+",
    r"\tTotal backfilled heterogeneous job components: 0",
    r"\tTotal cycles: \d+",
]


def stats(c, *args):
    rc, out, err = c.run("sdiag", *args)
    assert (rc, err) == (0, ""), err
    return out


def value(out, label):
    m = re.search(rf"^{re.escape(label)}:\s+(\d+)$", out, re.M)
    assert m, (label, out)
    return int(m.group(1))


def section(out, title):
    body = out.split(f"\n{title}\n", 1)[1]
    return body.split("\n\n", 1)[0].splitlines()


def test_layout_and_job_counters(cluster):
    c = cluster
    out = stats(c)
    lines = out.splitlines()
    for i, pat in enumerate(LAYOUT):
        assert re.fullmatch(pat, lines[i]), (i, pat, lines[i])
    assert value(out, "Jobs submitted") == 0
    held = c.sbatch("-H", "--wrap", "true")
    done = c.sbatch("-o", "/dev/null", "--wrap", "true")
    bad = c.sbatch("-o", "/dev/null", "--wrap", "exit 3")
    c.wait_state(done, "COMPLETED")
    c.wait_state(bad, "FAILED")
    c.ok("scancel", str(held))
    c.wait_state(held, "CANCELLED")
    out = stats(c)
    assert [value(out, f"Jobs {w}") for w in
            ("submitted", "started", "completed", "canceled", "failed")] == [3, 2, 1, 1, 1]
    assert value(out, "Jobs pending") == 0 and value(out, "Jobs running") == 0
    assert value(out, "\tTotal cycles") >= 1  # the main scheduler's (first match)
    # the RPC tables: Slurm's names, ids and columns; this user's own row
    rpcs = section(out, "Remote Procedure Call statistics by message type")
    submit = [ln for ln in rpcs if "REQUEST_SUBMIT_BATCH_JOB" in ln]
    assert len(submit) == 1
    m = re.fullmatch(r"\tREQUEST_SUBMIT_BATCH_JOB {16}\( 4003\) count:(\d+) +"
                     r"ave_time:(\d+) +total_time:(\d+)", submit[0])
    assert m and int(m.group(1)) == 3, submit
    assert int(m.group(2)) == int(m.group(3)) // 3
    assert any(ln.startswith("\tREQUEST_KILL_JOB                        ( 5032) count:1 ")
               for ln in rpcs), rpcs
    counts = [int(re.search(r"count:(\d+)", ln).group(1)) for ln in rpcs]
    assert counts == sorted(counts, reverse=True)  # by count, as sdiag sorts
    users = section(out, "Remote Procedure Call statistics by user")
    mine = [ln for ln in users if ln.startswith(f"\t{ME:<16}({os.getuid():>8}) count:")]
    assert len(mine) == 1, users
    assert out.endswith("\nPending RPC statistics\n\tNo pending RPCs\n")
    # sorted by id with -i
    ids = [int(re.search(r"\( *(\d+)\)", ln).group(1))
           for ln in section(stats(c, "-i"), "Remote Procedure Call statistics by message type")]
    assert ids == sorted(ids)


def test_reset(cluster):
    c = cluster
    c.sbatch("-H", "--wrap", "true")
    before = stats(c)
    assert value(before, "Jobs submitted") == 1
    assert c.run("sdiag", "-r") == (0, "Reset scheduling statistics\n", "")
    out = stats(c, "--all")
    assert value(out, "Jobs submitted") == 0
    assert value(out, "Jobs pending") == 1  # the moment's figures stay
    since = int(re.search(rf"Data since      {TIME}", out).group(1))
    first = int(re.search(rf"Data since      {TIME}", before).group(1))
    assert since >= first
    # the only RPC since the reset is the reset itself
    assert section(out, "Remote Procedure Call statistics by message type") == [
        l for l in section(out, "Remote Procedure Call statistics by message type")
        if "REQUEST_STATS_INFO" in l]
    assert c.run("sdiag", "--reset") == (0, "Reset scheduling statistics\n", "")
    # only an administrator may reset; anyone may look
    c.sbatch("-H", "--wrap", "true")
    nobody = as_nobody_prefix() + [c.bin / "sdiag"]
    assert c.run(*nobody, "-r") == (
        255, "", "slurm_reset_statistics: Access/permission denied\n")
    rc, out, err = c.run(*nobody)
    assert (rc, err) == (0, "") and value(out, "Jobs submitted") == 1


def test_backfill_cycles_counted(make_cluster):
    c = make_cluster(nodes=1, sets={"SchedulerParameters": "bf_interval=1"})
    c.sbatch("-H", "--wrap", "true")
    c.sbatch("-o", "/dev/null", "--wrap", "true")
    out = wait_for(lambda: (lambda o: o if re.search(
        r"^Backfilling stats\n(?:.*\n){3}\tTotal cycles: [1-9]", o, re.M) else None)(
        stats(c)), 20, what="a backfill cycle")
    bf = section(out, "Backfilling stats")
    assert re.fullmatch(rf"\tLast cycle when: {TIME}", bf[4]), bf
    assert [re.sub(r"\d+", "N", ln) for ln in bf[5:]] == [
        "\tLast cycle: N", "\tMax cycle:  N", "\tMean cycle: N",
        "\tLast depth cycle: N", "\tLast depth cycle (try sched): N",
        "\tDepth Mean: N", "\tDepth Mean (try depth): N", "\tLast queue length: N",
        "\tQueue length mean: N", "\tLast table size: N", "\tMean table size: N"]


def test_options(cluster):
    rc, out, err = cluster.run("sdiag", "--help")
    assert rc == 0 and out.startswith("Usage: sdiag [OPTIONS]\n  -a, --all ")
    assert cluster.run("sdiag", "--usage") == (0, "Usage: sdiag [-M cluster] [-aritT]\n", "")
    rc, out, err = cluster.run("sdiag", "--foo")
    assert (rc, out) == (1, "")
    assert err.endswith('Try "sdiag --help" for more information\n')


def test_ctld_restart_starts_the_counters_again(cluster):
    """As slurmctld's, the counters live in memory: a ctld killed and
    started again counts from its new start, and reads the moment's
    figures (the recovered pending job) from its recovered state."""
    c = cluster
    c.sbatch("-H", "--wrap", "true")
    first = stats(c)
    assert value(first, "Jobs submitted") == 1
    c.kill9("ctld")
    c.up()
    out = wait_for(lambda: (lambda r: r[1] if r[0] == 0 else None)(c.run("sdiag")), 20,
                   what="sdiag from the restarted ctld")
    assert value(out, "Jobs submitted") == 0 and value(out, "Jobs pending") == 1
    since = lambda o: int(re.search(rf"Data since      {TIME}", o).group(1))
    assert since(out) >= since(first)
