"""priority/multifactor on a real cluster: fair share lets a light account
jump a heavy one, a QOS's Priority and age order jobs, sprio shows the
factors byte for byte as Slurm 22.05 prints them, scontrol update
Priority=/Nice= and scontrol top reorder jobs, usage survives a kill -9 of
ctld, and bad priority settings are refused with file:line. Each cluster
is its own, with a PriorityCalcPeriod of a second or two."""

import os
import pwd
import re

from conftest import BIN, run, wait_for

ME = pwd.getpwuid(os.getuid()).pw_name

MULTI = {"PriorityType": "priority/multifactor", "PriorityCalcPeriod": "0:01",
         "PriorityDecayHalfLife": "1:00:00", "SchedulerParameters": "bf_interval=1"}


def one_node(make_cluster, cpus=2, **sets):
    c = make_cluster(nodes=1, sets=dict(MULTI, **sets), start=False)
    c.up(extra=("--cpus", str(cpus), "--mem", "4096"))
    wait_for(lambda: "IDLE" in c.show_node("n1")["State"], 20, what="n1 up")
    return c


def prio(c, jid):
    return int(c.ok("squeue", "-h", "-j", str(jid), "-o", "%Q").strip())


def share_rows(c):
    """sshare -a's user rows: {(account, user): (raw_usage, fairshare)}."""
    out = c.ok("sshare", "-a", "-n", "-P", "-o", "Account,User,RawUsage,FairShare")
    rows = {}
    for line in out.splitlines():
        acct, user, raw, fs = line.split("|")
        if user:
            rows[(acct.strip(), user)] = (int(raw), float(fs))
    return rows


def test_fair_share_lets_a_light_account_jump_a_heavy_one(make_cluster):
    c = one_node(make_cluster, PriorityWeightFairshare="100000")
    c.ok("sacctmgr", "-i", "add", "account", "heavy,light")
    c.ok("sacctmgr", "-i", "add", "user", ME, "account=heavy,light")
    first = c.sbatch("-A", "heavy", "-c", "2", "--wrap", "sleep 2")
    c.wait_done(first)
    # heavy's usage is counted and fair share says light is owed more
    wait_for(lambda: share_rows(c)[("heavy", ME)][0] > 0, 10, what="heavy's usage")
    wait_for(lambda: (lambda r: r[("light", ME)][1] > r[("heavy", ME)][1])(share_rows(c)),
             10, what="light's fair share above heavy's")
    blocker = c.sbatch("-A", "heavy", "-c", "2", "--wrap", "sleep 3")
    c.wait_state(blocker, "RUNNING")
    h = c.sbatch("-A", "heavy", "-c", "2", "--wrap", "sleep 1")
    light = c.sbatch("-A", "light", "-c", "2", "--wrap", "sleep 2")
    assert prio(c, light) > prio(c, h)
    c.wait_state(light, "RUNNING", timeout=20)
    assert c.state(h) == "PENDING"  # submitted first, yet waits for light
    c.wait_done(h, timeout=30)
    assert c.show_job(h)["StartTime"] >= c.show_job(light)["StartTime"]
    rows = share_rows(c)
    assert rows[("heavy", ME)][0] > rows[("light", ME)][0] > 0
    assert rows[("light", ME)][1] > rows[("heavy", ME)][1]


def test_a_higher_qos_priority_goes_first(make_cluster):
    c = one_node(make_cluster, PriorityWeightQOS="10000")
    c.ok("sacctmgr", "-i", "add", "qos", "high", "Priority=100")
    blocker = c.sbatch("-c", "2", "--wrap", "sleep 2")
    c.wait_state(blocker, "RUNNING")
    low = c.sbatch("-c", "2", "--wrap", "sleep 1")
    high = c.sbatch("-c", "2", "--qos=high", "--wrap", "sleep 1")
    out = c.ok("sprio", "-h", "-o", "%i %Q")
    assert out.splitlines() == [f"{low} 0", f"{high} 10000"]
    assert prio(c, high) > prio(c, low)
    c.wait_state(high, "RUNNING", timeout=20)
    assert c.state(low) == "PENDING"
    c.wait_done(low, timeout=30)


def test_age_raises_priority_over_time(make_cluster):
    c = one_node(make_cluster, PriorityWeightAge="1000", PriorityMaxAge="1:00")
    blocker = c.sbatch("-c", "2", "--wrap", "sleep 30")
    c.wait_state(blocker, "RUNNING")
    waiting = c.sbatch("-c", "2", "--wrap", "true")

    def age():
        out = c.ok("sprio", "-h", "-j", str(waiting), "-o", "%A")
        return int(out.strip()) if out.strip() else None

    first = wait_for(lambda: age(), 10, what="an age factor")
    later = wait_for(lambda: (lambda a: a if a and a > first else None)(age()), 10,
                     what="the age factor to grow")
    assert 0 < first < later <= 1000
    assert prio(c, waiting) >= later
    c.ok("scancel", str(blocker), str(waiting))


def sprio_line(jid, prio_, js, part, qos, tres):
    return f"{jid:>15} {'debug':<9} {prio_:>10} {0:>10} {js:>10} {part:>10} {qos:>10} {tres:>20}"


def test_sprio_shows_the_factors_as_slurm(make_cluster):
    """2 nodes of 2 CPUs; weights JobSize 1000, Partition 1000, QOS 2000,
    TRES CPU=2000. A (1 CPU, 1 node, normal): job size (1/2 + 1/4)/2 =
    0.375, partition 1, QOS 0, cpu 1/4: 375 + 1000 + 0 + 500 = 1875. B (4
    CPUs on 2 nodes, QOS high, the highest Priority): 1000 + 1000 + 2000 +
    2000 = 6000."""
    c = make_cluster(nodes=2, start=False, sets=dict(
        MULTI, PriorityWeightJobSize="1000", PriorityWeightPartition="1000",
        PriorityWeightQOS="2000", PriorityWeightTRES="CPU=2000"))
    c.up(extra=("--cpus", "2", "--mem", "4096"))
    c.ok("sacctmgr", "-i", "add", "qos", "high", "Priority=10")
    c.ok("scontrol", "update", "PartitionName=debug", "State=DOWN")
    a = c.sbatch("-n", "1", "--wrap", "true")
    b = c.sbatch("-N", "2", "-n", "4", "--qos=high", "--wrap", "true")
    header = (f"{'JOBID':>15} {'PARTITION':<9} {'PRIORITY':>10} {'SITE':>10} "
              f"{'JOBSIZE':>10} {'PARTITION':>10} {'QOS':>10} {'TRES':>20}")
    assert c.ok("sprio").splitlines() == [
        header, sprio_line(a, 1875, 375, 1000, 0, "cpu=500"),
        sprio_line(b, 6000, 1000, 1000, 2000, "cpu=2000")]
    assert c.ok("sprio", "-w").splitlines() == [
        header, f"{'Weights':>15} {'':<9} {'':>10} {1:>10} {1000:>10} {1000:>10} "
        f"{2000:>10} {'CPU=2000':>20}"]
    assert (prio(c, a), prio(c, b)) == (1875, 6000)
    long_ = c.ok("sprio", "-l", "-j", str(b)).splitlines()
    assert long_[0] == (
        f"{'JOBID':>15} {'PARTITION':<9} {'USER':>8} {'PRIORITY':>10} {'SITE':>10} "
        f"{'AGE':>10} {'ASSOC':>10} {'FAIRSHARE':>10} {'JOBSIZE':>10} {'PARTITION':>10} "
        f"{'QOS':>10} {'NICE':>11} {'TRES':>20}")
    assert long_[1] == (
        f"{b:>15} {'debug':<9} {ME[:8]:>8} {6000:>10} {0:>10} {0:>10} {0:>10} {0:>10} "
        f"{1000:>10} {1000:>10} {2000:>10} {0:>11} {'cpu=2000':>20}")
    norm = c.ok("sprio", "-n", "-h", "-j", str(a), "-o", "%j|%p|%q|%t")
    assert norm == "0.3750000|1.0000000|0.0000000|cpu=0.25\n"
    assert c.run("sprio", "-j", "999999") == (
        0, "Unable to find jobs matching user/id(s) specified\n", "")
    assert c.run("sprio", "-j", "abc") == (1, "", "sprio: error: Invalid job id: abc\n")
    assert c.ok("sprio", "-h", "-p", "nosuch") == ""
    assert c.ok("sprio", "-h", "-u", ME, "-o", "%i") == f"{a}\n{b}\n"
    assert c.ok("sprio", "-h", "-S", "-y", "-o", "%i") == f"{b}\n{a}\n"
    assert c.run("sprio", "-h", "-u", "no_such_user_x", "-o", "%i") == (
        0, "", "sprio: error: Invalid user: no_such_user_x\n\n")
    assert c.run("sprio", "-S", "z") == (1, "", "sprio: error: Invalid sort specification: z\n")
    # a QOS with a higher Priority: B's QOS factor is 10/40 at once
    c.ok("sacctmgr", "-i", "add", "qos", "top", "Priority=40")
    assert prio(c, b) == 6000 - 2000 + 500
    # a partition's PriorityJobFactor is relative to the highest one
    c.ok("scontrol", "create", "PartitionName=big", "Nodes=ALL", "PriorityJobFactor=4",
         "State=DOWN")
    assert prio(c, a) == 1875 - 1000 + 250


def test_sprio_under_priority_basic(cluster):
    assert cluster.run("sprio") == (
        1, "", "You are not running a supported priority plugin\n(priority/basic).\n"
        "Only 'priority/multifactor' is supported.\n")


def test_priority_nice_and_top(make_cluster):
    c = one_node(make_cluster, PriorityWeightFairshare="10000")
    blocker = c.sbatch("-c", "2", "--wrap", "sleep 30")
    c.wait_state(blocker, "RUNNING")
    j1, j2, j3 = (c.sbatch("-c", "2", "--wrap", "sleep 1") for _ in range(3))
    assert prio(c, j1) == prio(c, j2) == prio(c, j3)

    # Nice= moves a job down; only an administrator may go below 0
    c.ok("scontrol", "update", f"JobId={j1}", "Nice=100")
    assert prio(c, j1) == prio(c, j2) - 100
    assert c.show_job(j1)["Nice"] == "100"

    # scontrol top: j1 takes the highest priority among the user's jobs,
    # the others move down, each one's nice with it
    c.ok("scontrol", "top", str(j1))
    assert prio(c, j1) > max(prio(c, j2), prio(c, j3))
    assert int(c.show_job(j1)["Nice"]) < 100

    # an administrator's Priority= pins j3 first; recalculation leaves it
    c.ok("scontrol", "update", f"JobId={j3}", "Priority=999999")
    assert prio(c, j3) == 999999
    assert c.ok("sprio", "-h", "-j", str(j3), "-o", "%Y %F") == "999999 0\n"
    c.ok("scontrol", "update", f"JobId={j3}", "Nice=5")  # ignored on a set priority
    first = c.show_job(j3)
    assert (first["Priority"], first["Nice"]) == ("999999", "0")
    c.ok("scancel", str(blocker))
    c.wait_state(j3, "RUNNING", timeout=20)
    assert c.state(j1) == c.state(j2) == "PENDING"
    c.wait_state(j1, "RUNNING", timeout=20)
    assert c.state(j2) == "PENDING"

    # Priority=0 holds it, as in Slurm
    c.ok("scontrol", "update", f"JobId={j2}", "Priority=0")
    assert (c.show_job(j2)["Priority"], c.show_job(j2)["Reason"]) == ("0", "JobHeldAdmin")
    assert c.run("scontrol", "update", f"JobId={j2}", "Priority=5") == (
        1, "", f"Job is in held state, pending scheduler release for job {j2}\n")
    assert c.run("scontrol", "top", "999999") == (
        1, "", "Invalid job id specified for job 999999\n")
    assert c.run("scontrol", "top", str(j1)) == (
        1, "", f"Job is no longer pending execution for job {j1}\n")


def test_usage_survives_a_kill_9_of_ctld(make_cluster):
    c = one_node(make_cluster, PriorityWeightFairshare="1000")
    jid = c.sbatch("-c", "2", "--wrap", "sleep 3")
    c.wait_done(jid)
    raw = wait_for(lambda: share_rows(c)[("root", ME)][0] >= 4 and
                   share_rows(c)[("root", ME)][0], 10, what="the job's usage")
    assert raw <= 8  # 2 CPUs for about 3 seconds
    c.kill9("ctld")
    c.up()  # restarts only ctld
    after = share_rows(c)[("root", ME)][0]
    assert raw - 1 <= after <= raw, (raw, after)
    out = c.ok("sshare", "-n", "-P", "-o", "Account,RawUsage")
    assert out.splitlines()[0] == f"root|{after}"  # the tree's sum


def test_bad_priority_settings_are_refused(cluster, tmp_path):
    good = cluster.conf.read_text()
    line = len(good.splitlines()) + 1
    cases = {
        "PriorityWeightAge=x\n": "PriorityWeightAge value (x) is not a valid number",
        "PriorityType=priority/foo\n": "PriorityType: 'priority/foo' is not supported",
        "PartitionName=p2 Nodes=ALL TRESBillingWeights=CPU=x\n":
            "TRESBillingWeights: \"CPU=x\" is an invalid TRES weight entry",
        "PriorityFlags=NO_SUCH_FLAG\n": "PriorityFlags: 'NO_SUCH_FLAG' is not a priority flag",
        "PriorityUsageResetPeriod=HOURLY\n":
            "Bad value \"HOURLY\" for PriorityUsageResetPeriod",
        "PriorityWeightTRES=FOO=1\n":
            "PriorityWeightTRES: TRES weight 'FOO' is not a configured TRES type.",
    }
    for text, why in cases.items():
        bad = tmp_path / "bad.conf"
        bad.write_text(good + text)
        rc, out, err = run([BIN / "drover-ctld", "-t", "-f", bad])
        assert rc != 0, text
        assert f"{bad}:{line}: {why}" in out + err, out + err
    ok = tmp_path / "ok.conf"
    ok.write_text(good + "PriorityType=priority/multifactor\nPriorityCalcPeriod=0:05\n"
                  "PriorityWeightTRES=CPU=1000,Mem=0.5G,GRES/gpu=3000\n"
                  "PriorityUsageResetPeriod=WEEKLY\nPriorityFlags=NO_FAIR_TREE\n"
                  "PartitionName=p2 Nodes=ALL TRESBillingWeights=CPU=1.0,Mem=0.25G\n")
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", ok])
    assert rc == 0, out + err


def test_scontrol_bad_priority_and_nice(make_cluster):
    c = one_node(make_cluster)
    jid = c.sbatch("-H", "--wrap", "true")
    assert c.run("scontrol", "update", f"JobId={jid}", "Priority=-1") == (
        1, "", "Invalid Priority value: -1\n")
    assert c.run("scontrol", "update", f"JobId={jid}", "Nice=abc") == (
        1, "", "Invalid Nice value: abc\n")
    assert c.show_job(jid)["Nice"] == "0"
    assert re.fullmatch(r"\d+", c.show_job(jid)["Priority"])
