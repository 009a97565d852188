"""Job arrays (issue 5, point 1) on a real local cluster: sbatch --array in
Slurm's forms, the %N throttle, the SLURM_ARRAY_* environment, %A/%a file
names, squeue/scontrol/sacct/scancel on arrays and their tasks, Slurm's
refusal of bad specs and of specs over MaxArraySize, a pending array that
is one record however many tasks it holds, and ctld restarts in between.
Expected texts come from Slurm 22.05 (the peer cluster)."""

import getpass
import pathlib

from conftest import parse_fields, wait_for

BAD = "sbatch: error: Batch job submission failed: Invalid job array specification\n"


def sacct_rows(c, jid, fields="JobID,JobIDRaw,State"):
    out = c.ok("sacct", "-j", str(jid), "-X", "-n", "-P", "-o", fields)
    return [line.split("|") for line in out.splitlines()]


def show_all(c, jid):
    """`scontrol show job` records of jid, in the order printed."""
    out = c.ok("scontrol", "show", "job", str(jid))
    return [parse_fields(block) for block in out.strip().split("\n\n") if block]


def test_throttle_1000_tasks_never_more_than_10(make_cluster, tmp_path):
    """%10: never more than 10 tasks at once, by squeue and by the tasks'
    own marker files; all 1,000 end COMPLETED in sacct, each once."""
    c = make_cluster(nodes=2, start=False)
    c.up(extra=["--cpus", "8"])  # 16 CPUs: only the throttle holds them back
    run, seen = c.work / "run", c.work / "seen"
    run.mkdir()
    seen.mkdir()
    c.write("t.sh", f"""#!/bin/bash
touch {run}/$SLURM_ARRAY_TASK_ID
ls {run} | wc -l > {seen}/$SLURM_ARRAY_TASK_ID
rm {run}/$SLURM_ARRAY_TASK_ID
""")
    jid = c.sbatch("--array=0-999%10", "-o", "/dev/null", "t.sh")
    most = [0]

    def finished():
        out = c.ok("squeue", "-h", "-r", "-t", "R", "-o", "%i")
        running = [x for x in out.split() if x.startswith(f"{jid}_")]
        most[0] = max(most[0], len(running))
        assert len(running) <= 10, running
        return len(list(seen.iterdir())) == 1000 and not c.ok(
            "squeue", "-h", "-j", str(jid))
    wait_for(finished, 900, interval=0.2, what="1,000 tasks to run")
    counts = [int(p.read_text()) for p in seen.iterdir()]
    assert max(counts) <= 10 and min(counts) >= 1
    assert most[0] >= 2  # the polling did see tasks side by side
    rows = wait_for(lambda: (r := sacct_rows(c, jid)) and len(r) == 1000 and r,
                    60, what="sacct to list 1,000 tasks")
    assert {r[2] for r in rows} == {"COMPLETED"}
    assert sorted(int(r[0].split("_")[1]) for r in rows) == list(range(1000))
    assert len({r[1] for r in rows}) == 1000  # each task its own job id
    # the array's record is the last task to start (Slurm's rule)
    assert [r[0] for r in rows if r[1] == str(jid)] == [f"{jid}_999"]


def test_environment_and_file_names(make_cluster):
    c = make_cluster(nodes=2, start=False)
    c.up(extra=["--cpus", "4"])
    c.write("e.sh", "#!/bin/bash\nenv | grep ^SLURM_ARRAY_ | sort\n"
                    "echo SLURM_JOB_ID=$SLURM_JOB_ID\n")
    jid = c.sbatch("--array=1-7:3,20", "-o", "o_%A_%a_%j.txt", "e.sh")
    files = wait_for(lambda: (f := sorted(c.work.glob(f"o_{jid}_*"))) and
                     len(f) == 4 and all("SLURM_JOB_ID=" in p.read_text() for p in f) and f,
                     60, what="4 output files")
    by_task = {}
    for p in files:
        _, a, task, own = p.stem.split("_")
        env = dict(line.split("=", 1) for line in p.read_text().split())
        assert a == str(jid) and env["SLURM_JOB_ID"] == own
        by_task[int(task)] = env
    assert sorted(by_task) == [1, 4, 7, 20]
    for task, env in by_task.items():
        assert env == {"SLURM_ARRAY_JOB_ID": str(jid),
                       "SLURM_ARRAY_TASK_ID": str(task),
                       "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1",
                       "SLURM_ARRAY_TASK_MAX": "20", "SLURM_ARRAY_TASK_STEP": "3",
                       "SLURM_JOB_ID": env["SLURM_JOB_ID"]}
    # the tasks start lowest first; the last one runs as the array's record
    assert by_task[20]["SLURM_JOB_ID"] == str(jid)
    assert len({e["SLURM_JOB_ID"] for e in by_task.values()}) == 4


def test_squeue_scontrol_forms_as_slurm(make_cluster):
    c = make_cluster(nodes=1)
    user = getpass.getuser()
    jid = c.sbatch("-H", "--array=0-99%4", "--wrap", "true")
    head = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
    line = f"{f'{jid}_[0-99%4]':>18} {'debug':>9} {'wrap':>8} {user:>8} PD       0:00      1 (JobHeldUser)\n"
    assert c.ok("squeue") == head + line
    lines = c.ok("squeue", "-r").splitlines()
    assert len(lines) == 101
    assert lines[1] == f"{f'{jid}_0':>18} {'debug':>9} {'wrap':>8} {user:>8} PD       0:00      1 (JobHeldUser)"
    assert lines[100].startswith(f"{f'{jid}_99':>18} ")
    assert c.ok("squeue", "-h", "-o", "%i|%F|%K|%A|%r") == (
        f"{jid}_[0-99%4]|{jid}|0-99%4|{jid}|JobHeldUser\n")
    assert c.ok("squeue", "-h", "-j", f"{jid}_7", "-o", "%i %K") == f"{jid}_7 7\n"
    (rec,) = show_all(c, jid)
    assert (rec["JobId"], rec["ArrayJobId"], rec["ArrayTaskId"],
            rec["ArrayTaskThrottle"]) == (str(jid), str(jid), "0-99%4", "4")
    first = c.ok("scontrol", "show", "job", str(jid)).splitlines()[0]
    assert first == (f"JobId={jid} ArrayJobId={jid} ArrayTaskId=0-99%4 "
                     "ArrayTaskThrottle=4 JobName=wrap")
    # one pending task of the rest: the array's record, that task's id
    assert c.ok("scontrol", "show", "job", f"{jid}_7").splitlines()[0] == (
        f"JobId={jid} ArrayJobId={jid} ArrayTaskId=7 ArrayTaskThrottle=4 JobName=wrap")
    assert c.run("scontrol", "show", "job", f"{jid}_100") == (
        1, f"Job {jid}_100 not found\n", "")
    # %a of a pending rest is Slurm's NO_VAL - 1; %A the array's id
    c.ok("scancel", str(jid))
    jid2 = c.sbatch("-H", "--array=3-4", "-o", "p_%A_%a_%j.txt", "--wrap", "true")
    assert show_all(c, jid2)[0]["StdOut"] == f"{c.work}/p_{jid2}_4294967294_{jid2}.txt"


def test_tasks_listed_by_scontrol_and_sacct_while_running(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2"])
    gate = c.work / "gate"
    c.write("w.sh", f"#!/bin/bash\nwhile [ ! -e {gate} ]; do sleep 0.1; done\n")
    jid = c.sbatch("--array=1-5%2", "w.sh")
    wait_for(lambda: c.ok("squeue", "-h", "-t", "R", "-o", "%i").split() ==
             [f"{jid}_1", f"{jid}_2"], 30, what="two tasks running")
    recs = show_all(c, jid)
    assert [(r["ArrayTaskId"], r["JobState"]) for r in recs] == [
        ("3-5%2", "PENDING"), ("2", "RUNNING"), ("1", "RUNNING")]
    assert recs[0]["Reason"] == "JobArrayTaskLimit"
    assert [r["JobId"] for r in recs] == [str(jid), str(jid + 2), str(jid + 1)]
    assert sacct_rows(c, jid) == [
        [f"{jid}_[3-5%2]", str(jid), "PENDING"],
        [f"{jid}_1", str(jid + 1), "RUNNING"], [f"{jid}_2", str(jid + 2), "RUNNING"]]
    assert sacct_rows(c, f"{jid}_2") == [[f"{jid}_2", str(jid + 2), "RUNNING"]]
    gate.touch()
    wait_for(lambda: [r[2] for r in sacct_rows(c, jid)] == ["COMPLETED"] * 5,
             60, what="the array to complete")


def test_scancel_forms(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2"])
    jid = c.sbatch("-H", "--array=0-9", "--wrap", "sleep 300")
    assert c.run("scancel", f"{jid}_3") == (0, "", "")
    assert show_all(c, jid)[0]["ArrayTaskId"] == "0-2,4-9"
    assert c.run("scancel", f"{jid}_[5-6]") == (0, "", "")
    assert show_all(c, jid)[0]["ArrayTaskId"] == "0-2,4,7-9"
    # a task that is not there: a plain cancel passes over it, a signal not
    assert c.run("scancel", f"{jid}_99") == (0, "", "")
    assert c.run("scancel", "-s", "USR1", f"{jid}_99") == (
        1, "", f"scancel: error: Kill job error on job id {jid}_99: "
               "Invalid job id specified\n")
    c.ok("scontrol", "release", str(jid))
    wait_for(lambda: len(c.ok("squeue", "-h", "-t", "R").splitlines()) == 2,
             30, what="two tasks running")
    # a running task by its array id and index
    assert c.run("scancel", f"{jid}_0") == (0, "", "")
    wait_for(lambda: [r for r in sacct_rows(c, jid) if r[0] == f"{jid}_0"][0][2]
             .startswith("CANCELLED"), 30, what="task 0 cancelled")
    # the whole array: running tasks and the pending rest
    assert c.run("scancel", str(jid)) == (0, "", "")
    wait_for(lambda: not c.ok("squeue", "-h", "-j", str(jid)), 30,
             what="the array to go")
    states = {r[0]: r[2] for r in sacct_rows(c, jid)}
    assert {s.split()[0] for s in states.values()} == {"CANCELLED"}
    # the pending tasks cancelled by index kept records of their own
    assert {f"{jid}_0", f"{jid}_3", f"{jid}_[5-6]"} <= set(states), states


def test_bad_specs_refused_nothing_submitted(make_cluster):
    c = make_cluster(nodes=1, sets={"MaxArraySize": "11"})
    for spec in ["abc", "1-0", "5-3", "0-10:0", "-1", "0-10:-1", "1:5", "1-3x",
                 "1-", "11", "0-11", "5,11"]:
        assert c.run("sbatch", f"--array={spec}", "--wrap", "true") == (1, "", BAD), spec
    env = dict(c.env, SBATCH_ARRAY_INX="0-11")
    assert c.run("sbatch", "--wrap", "true", env=env) == (1, "", BAD)
    assert c.sbatch("--wrap", "true") == 1  # the first job ever: nothing was taken
    assert c.ok("squeue", "-h", "-t", "all", "-o", "%i").split() == ["1"]
    # MaxArraySize - 1 is the highest index; SBATCH_ARRAY_INX is read
    env = dict(c.env, SBATCH_ARRAY_INX="8-10")
    out = c.ok("sbatch", "-H", "--wrap", "true", env=env)
    assert out == "Submitted batch job 2\n"
    assert show_all(c, 2)[0]["ArrayTaskId"] == "8-10"
    # empty tokens are skipped and brackets allowed, as Slurm's parser does
    assert show_all(c, c.sbatch("-H", "--array=[1,,3]", "--wrap", "true"))[0][
        "ArrayTaskId"] == "1,3"


def test_pending_100000_tasks_is_one_record_and_survives_kill9(make_cluster):
    c = make_cluster(nodes=1, sets={"MaxArraySize": "100001", "MaxJobCount": "100010"})
    pid = c.pid("ctld")

    def rss():
        for line in pathlib.Path(f"/proc/{c.pid('ctld')}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])  # KiB
    before = rss()
    jid = c.sbatch("-H", "--array=0-99999%50", "--wrap", "true")
    assert rss() - before < 8 * 1024  # 100,000 records would cost far more
    assert sacct_rows(c, jid) == [[f"{jid}_[0-99999%50]", str(jid), "PENDING"]]
    assert c.ok("squeue", "-h", "-o", "%i").split() == [f"{jid}_[0-99999%50]"]
    assert len(c.ok("squeue", "-h", "-r", "-o", "%i").splitlines()) == 100000
    c.ok("scancel", f"{jid}_[10-99989]")
    c.kill9("ctld")
    c.up()
    assert c.pid("ctld") != pid
    # the pending rest, and one record for the 99,980 tasks cancelled
    rec, gone = show_all(c, jid)
    assert rec["ArrayTaskId"] == "0-9,99990-99999%50"
    assert rec["JobState"] == "PENDING" and rec["Reason"] == "JobHeldUser"
    assert gone["ArrayTaskId"] == "10-99989%50" and gone["JobState"] == "CANCELLED", gone


def test_ctld_kill9_mid_array_runs_each_task_once(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2"])
    done = c.work / "done"
    done.mkdir()
    gate = c.work / "gate"
    c.write("k.sh", f"#!/bin/bash\nwhile [ ! -e {gate} ]; do sleep 0.1; done\n"
                    f"echo $SLURM_JOB_ID >> {done}/$SLURM_ARRAY_TASK_ID\n")
    jid = c.sbatch("--array=0-5%2", "k.sh")
    wait_for(lambda: len(c.ok("squeue", "-h", "-t", "R").splitlines()) == 2,
             30, what="two tasks running")
    c.kill9("ctld")
    c.up()
    gate.touch()
    wait_for(lambda: [r[2] for r in sacct_rows(c, jid)] == ["COMPLETED"] * 6,
             90, what="all six tasks to complete")
    assert sorted(int(p.name) for p in done.iterdir()) == list(range(6))
    assert all(len(p.read_text().split()) == 1 for p in done.iterdir())


def test_sacct_finds_tasks_in_history(make_cluster):
    """After MinJobAge only the store knows the tasks: sacct -j ARRAY still
    lists every one (acct.query matches array_job_id in the history)."""
    c = make_cluster(nodes=1, sets={"MinJobAge": "1"})
    jid = c.sbatch("--array=2-4", "--wrap", "true")
    wait_for(lambda: c.run("scontrol", "show", "job", str(jid))[0] == 1, 60,
             what="the array to leave ctld's memory")
    rows = sacct_rows(c, jid)
    assert sorted(r[0] for r in rows) == [f"{jid}_2", f"{jid}_3", f"{jid}_4"]
    assert {r[2] for r in rows} == {"COMPLETED"}
    assert sacct_rows(c, f"{jid}_3")[0][0] == f"{jid}_3"


def test_scancel_filters_pick_records_not_whole_arrays(make_cluster):
    """`scancel -t PENDING` cancels an array's pending rest only; its
    running tasks go on (Slurm cancels what the filters select)."""
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2"])
    jid = c.sbatch("--array=0-5%2", "--wrap", "sleep 300")
    wait_for(lambda: len(c.ok("squeue", "-h", "-t", "R").splitlines()) == 2,
             30, what="two tasks running")
    assert c.run("scancel", "-t", "PENDING") == (0, "", "")
    wait_for(lambda: c.ok("squeue", "-h", "-o", "%i %t").split("\n")[:-1] ==
             [f"{jid}_0 R", f"{jid}_1 R"], 30, what="only the running tasks left")
    assert show_all(c, jid)[0]["JobState"] == "CANCELLED"
    c.ok("scancel", str(jid))


def test_directive_hold_release_update_on_the_array(make_cluster):
    """#SBATCH --array; scontrol hold/update/release on the array's id act
    on its pending rest, and tasks started later carry the update."""
    c = make_cluster(nodes=1, start=False)
    c.up(extra=["--cpus", "2"])
    c.write("d.sh", "#!/bin/bash\n#SBATCH --array=5-7\nsleep 300\n")
    jid = c.sbatch("-H", "d.sh")
    (rec,) = show_all(c, jid)
    assert (rec["ArrayTaskId"], rec["Reason"]) == ("5-7", "JobHeldUser")
    c.ok("scontrol", "update", f"JobId={jid}", "TimeLimit=7")
    c.ok("scontrol", "release", str(jid))
    wait_for(lambda: len(c.ok("squeue", "-h", "-t", "R").splitlines()) == 2,
             30, what="two tasks running")
    recs = show_all(c, jid)
    assert recs[0]["ArrayTaskId"] == "7" and recs[0]["JobState"] == "PENDING"
    assert {r["TimeLimit"] for r in recs} == {"00:07:00"}
    c.ok("scontrol", "uhold", str(jid))
    assert show_all(c, jid)[0]["Reason"] == "JobHeldUser"
    c.ok("scancel", str(jid))


def test_array_id_outlives_its_record(make_cluster):
    """The array's record runs as the last task to start; when it has ended
    and left ctld's memory (MinJobAge) while an earlier task runs on, the
    array's id still names that task for squeue, scontrol and scancel."""
    c = make_cluster(nodes=1, sets={"MinJobAge": "1"}, start=False)
    c.up(extra=["--cpus", "2"])
    c.write("l.sh", '#!/bin/bash\n[ "$SLURM_ARRAY_TASK_ID" = 1 ] && exit 0\nsleep 300\n')
    jid = c.sbatch("--array=0-1", "l.sh")
    recs = wait_for(lambda: (r := show_all(c, jid)) and len(r) == 1 and r, 60,
                    what="the array's record to leave memory")
    assert (recs[0]["JobId"], recs[0]["ArrayTaskId"], recs[0]["JobState"]) == (
        str(jid + 1), "0", "RUNNING")
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%i %A") == f"{jid}_0 {jid + 1}\n"
    assert c.run("scancel", str(jid)) == (0, "", "")
    # gone from the listing (or, after MinJobAge, from ctld altogether)
    wait_for(lambda: c.run("squeue", "-h", "-j", str(jid))[1] == "", 30,
             what="the task to be cancelled")
    states = {r[0]: r[2] for r in sacct_rows(c, jid)}
    assert states[f"{jid}_0"].startswith("CANCELLED")
    assert states[f"{jid}_1"] == "COMPLETED"
