"""sacct against a live local cluster holding a job in every state that
exists: completed, failed with exit 3, cancelled while running, cancelled
while pending (held), timed out, running, pending. Expected outputs are
Slurm 22.05's bytes (checked against a real sacct), with ids, times and
node names filled in from the cluster. Every wait has a deadline."""

import json
import os
import pwd
import re
import shutil
import time

import pytest

from conftest import TERMINAL, Cluster, wait_for

HEADER = ("JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
          "------------ ---------- ---------- ---------- ---------- ---------- -------- \n")


class Jobs:
    """The module's cluster and the ids of its jobs, by name."""

    def __init__(self, c):
        self.c = c
        self.id = {}
        self.uid = os.getuid()

    def sacct(self, *args, env=None):
        return self.c.run(self.c.bin / "sacct", *args, env=env)

    def ok(self, *args, env=None):
        rc, out, err = self.sacct(*args, env=env)
        assert rc == 0, (args, rc, out, err)
        assert err == "", err  # nothing on stderr on success
        return out

    def node(self, name):
        return self.c.show_job(self.id[name])["BatchHost"]


@pytest.fixture(scope="module")
def jobs():
    c = Cluster(nodes=2)
    try:
        c.up()
        j = Jobs(c)
        sub = lambda name, *a: j.id.__setitem__(name, c.sbatch("-J", name, "-A", "lab", *a))
        sub("ok", "--wrap", "true")
        sub("fail3", "--wrap", "exit 3")
        sub("runcancel", "--wrap", "sleep 300")
        sub("to", "-t", "0:2", "--wrap", "sleep 300")
        sub("held", "-H", "--wrap", "true")
        sub("run", "--wrap", "sleep 300")
        sub("pend", "-H", "-t", "5", "--comment", "a comment", "--wrap", "true")
        sub("a_very_long_job_name", "--wrap", "true")
        c.wait_state(j.id["runcancel"], "RUNNING")
        c.ok("scancel", j.id["runcancel"], j.id["held"])
        for name, state in (("ok", "COMPLETED"), ("fail3", "FAILED"),
                            ("runcancel", "CANCELLED"), ("to", "TIMEOUT"),
                            ("held", "CANCELLED"), ("run", "RUNNING"),
                            ("a_very_long_job_name", "COMPLETED")):
            c.wait_state(j.id[name], state, timeout=60)
        # the cancelled job's batch shell has reported its signal
        wait_for(lambda: c.show_job(j.id["runcancel"]).get("ExitCode") == "0:15",
                 30, what="the cancelled job's exit status")
        # "now" windows below must not catch a job in the second it ended
        ends = j.ok("-X", "-n", "-P", "-o", "End", "-j", "1,2,3,4,5,8").split()
        last = max(time.mktime(time.strptime(e, "%Y-%m-%dT%H:%M:%S")) for e in ends)
        wait_for(lambda: time.time() >= last + 1, 5, what="a second after the last end")
        yield j
    finally:
        c.down()
        c.kill_leftovers()
        shutil.rmtree(c.dir, ignore_errors=True)


def row(jid, name, part, acct, cpus, state, ec):
    return f"{jid:<12} {name:>10} {part:>10} {acct:>10} {cpus:>10} {state:>10} {ec:>8} \n"


def test_ids_are_in_submit_order(jobs):
    assert [jobs.id[n] for n in ("ok", "fail3", "runcancel", "to", "held", "run",
                                 "pend", "a_very_long_job_name")] == list(range(1, 9))


def test_default_listing(jobs):
    """No options: today's jobs of every user (root) or the caller's, each
    followed by its batch step; pending-never-eligible jobs left out."""
    assert jobs.ok() == HEADER + (
        "1                    ok      debug        lab          1  COMPLETED      0:0 \n"
        "1.batch           batch                   lab          1  COMPLETED      0:0 \n"
        "2                 fail3      debug        lab          1     FAILED      3:0 \n"
        "2.batch           batch                   lab          1     FAILED      3:0 \n"
        "3             runcancel      debug        lab          1 CANCELLED+      0:0 \n"
        "3.batch           batch                   lab          1  CANCELLED     0:15 \n"
        "4                    to      debug        lab          1    TIMEOUT      0:0 \n"
        "4.batch           batch                   lab          1  CANCELLED     0:15 \n"
        "6                   run      debug        lab          1    RUNNING      0:0 \n"
        "6.batch           batch                   lab          1    RUNNING      0:0 \n"
        "8            a_very_lo+      debug        lab          1  COMPLETED      0:0 \n"
        "8.batch           batch                   lab          1  COMPLETED      0:0 \n")


def test_allocations_and_noheader(jobs):
    assert jobs.ok("-X", "-j", "1,2,5,7") == HEADER + (
        "1                    ok      debug        lab          1  COMPLETED      0:0 \n"
        "2                 fail3      debug        lab          1     FAILED      3:0 \n"
        "5                  held      debug        lab          1 CANCELLED+      0:0 \n"
        "7                  pend      debug        lab          1    PENDING      0:0 \n")
    assert jobs.ok("-n", "-X", "-j", "1") == (
        "1                    ok      debug        lab          1  COMPLETED      0:0 \n")
    assert jobs.ok("--noheader", "--allocations", "-j", "99") == ""


def test_parsable2_and_parsable(jobs):
    uid = jobs.uid
    assert jobs.ok("-P", "-j", "3,5") == (
        "JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode\n"
        f"3|runcancel|debug|lab|1|CANCELLED by {uid}|0:0\n"
        "3.batch|batch||lab|1|CANCELLED|0:15\n"
        f"5|held|debug|lab|1|CANCELLED by {uid}|0:0\n")
    assert jobs.ok("-p", "-n", "-j", "2") == (
        "2|fail3|debug|lab|1|FAILED|3:0|\n"
        "2.batch|batch||lab|1|FAILED|3:0|\n")
    assert jobs.ok("-P", "--delimiter=,,", "-o", "JobID,State", "-j", "1") == (
        "JobID,,State\n1,,COMPLETED\n1.batch,,COMPLETED\n")


def test_format_widths_and_truncation(jobs):
    """%N sets a width (right-aligned), %-N left-aligns; strings that do not
    fit end in '+', numbers are never cut."""
    out = jobs.ok("--format=JobID%-5,JobName%3,State%14,ExitCode%2,AllocCPUS%-4,"
                  "Priority%3,NodeList%-1", "-j", "3,8")
    prio3 = jobs.c.show_job(3)["Priority"]
    prio8 = jobs.c.show_job(8)["Priority"]
    by = f"CANCELLED by {jobs.uid}"
    by = by if len(by) <= 14 else by[:13] + "+"
    assert out == (
        "JobID Job          State Ex Allo Pri N \n"
        "----- --- -------------- -- ---- --- - \n"
        f"3     ru+ {by:>14} 0+ 1    {prio3} + \n"
        "3.ba+ ba+      CANCELLED 0+ 1        + \n"
        f"8     a_+      COMPLETED 0+ 1    {prio8} + \n"
        "8.ba+ ba+      COMPLETED 0+ 1        + \n")
    # the width of a field holds for all its columns: the last one given
    assert jobs.ok("-o", "JobID%3,JobID%-9", "-X", "-j", "1") == (
        "JobID     JobID     \n--------- --------- \n1         1         \n")


def test_field_names_any_case_and_prefixes(jobs):
    assert jobs.ok("-P", "-o", "jobidraw,STATE,jobn,exitc", "-X", "-j", "4") == (
        "JobIDRaw|State|JobName|ExitCode\n4|TIMEOUT|to|0:0\n")
    # as Slurm, a prefix picks the first field in its table: "st" is Start
    assert jobs.ok("-P", "-o", "st", "-X", "-j", "7") == "Start\nUnknown\n"


def test_jobs_lists_and_steps(jobs):
    one = jobs.ok("-j", "2,1")
    assert one == jobs.ok("-j", "1", "-j", "2") == jobs.ok("--jobs=1,,2")
    assert one.splitlines()[2].startswith("1 ")
    assert jobs.ok("-n", "-P", "-o", "JobID", "-j", "1.batch") == "1.batch\n"
    assert jobs.ok("-n", "-P", "-o", "JobID", "-j", "1.0") == ""
    assert jobs.ok("-n", "-P", "-o", "JobID", "-j", "1_3") == ""  # job 1 is no array
    assert jobs.ok("-n", "-P", "-o", "JobID", "-j", "1.batch,1") == "1\n1.batch\n"
    # as Slurm 22.05 (checked on the peer): with -X, a step's id shows its
    # job's row
    assert jobs.ok("-n", "-P", "-o", "JobID", "-X", "-j", "1.batch") == "1\n"
    assert jobs.ok("-n", "-P", "-o", "JobID", "-X", "-j", "1.0") == "1\n"


def test_snakemake_poll(jobs):
    assert jobs.ok("-P", "-n", "--format=JobIdRaw,State", "-j", "2") == (
        "2|FAILED\n2.batch|FAILED\n")
    assert jobs.ok("-P", "-n", "--format=JobIdRaw,State", "-j", "6") == (
        "6|RUNNING\n6.batch|RUNNING\n")
    assert jobs.ok("-P", "-n", "--format=JobIdRaw,State", "-j", "7") == "7|PENDING\n"


def test_submitit_query(jobs):
    node = jobs.node("ok")
    assert jobs.ok("-o", "JobID,State,NodeList", "--parsable2", "-j", "1,7") == (
        "JobID|State|NodeList\n"
        f"1|COMPLETED|{node}\n1.batch|COMPLETED|{node}\n"
        "7|PENDING|None assigned\n")


def test_filters_name_user_account_partition(jobs):
    q = lambda *a: jobs.ok("-X", "-n", "-P", "-o", "JobID", *a)
    assert q("--name=ok,to") == q("--name=OK,To") == "1\n4\n"
    me = pwd.getpwuid(jobs.uid).pw_name
    assert q("-u", me) == q("-u", str(jobs.uid)) == "1\n2\n3\n4\n6\n8\n"
    other = "nobody" if me != "nobody" else "root"
    assert q("-u", other) == ""
    assert q("-A", "LAB") == "1\n2\n3\n4\n6\n8\n"
    assert q("-A", "other") == ""
    assert q("-r", "DEBUG", "--name", "fail3") == "2\n"
    assert q("--partition=nosuch") == ""
    assert q("-M", "all", "--name", "ok") == q("--clusters=drover", "--name", "ok") == "1\n"
    assert q("-M", "elsewhere") == ""
    assert q("-a", "-D", "--name", "ok") == "1\n"


def test_states(jobs):
    q = lambda *a: jobs.ok("-X", "-n", "-P", "-o", "JobID,State", *a)
    # with -s and no -S, the window is "now": only what runs now
    assert q("-s", "R") == "6|RUNNING\n"
    assert q("-s", "CD") == ""
    # with a window, states that ended in it
    assert q("-s", "CA,TO", "-S", "midnight", "-E", "now") == (
        f"3|CANCELLED by {jobs.uid}\n4|TIMEOUT\n5|CANCELLED by {jobs.uid}\n")
    assert q("-s", "failed", "-S", "midnight", "-E", "now") == "2|FAILED\n"
    # with -j and no window, "running" means it ever ran
    assert q("-s", "r", "-j", "1,7") == "1|COMPLETED\n"
    assert q("--state=PD", "-j", "7") == ""  # held: never eligible


def test_time_windows(jobs):
    q = lambda *a: jobs.ok("-X", "-n", "-P", "-o", "JobID", *a)
    assert q("-S", "now", "-E", "now") == "6\n"
    assert q("-S", "2000-01-01", "-E", "2000-01-02T00:00:00") == ""
    assert q("--starttime=now-1hour", "--endtime=now+1hour") == "1\n2\n3\n4\n6\n8\n"
    assert q("-E", "now", "-j", "7") == ""  # pending held: not eligible yet
    assert q("-S", "midnight", "-j", "7,1") == "1\n"


def test_brief_and_long(jobs):
    assert jobs.ok("-b", "-j", "4") == (
        "JobID             State ExitCode \n"
        "------------ ---------- -------- \n"
        "4               TIMEOUT      0:0 \n"
        "4.batch       CANCELLED     0:15 \n")
    head = jobs.ok("-l", "-P", "-X", "-j", "1").splitlines()[0]
    assert head == (
        "JobID|JobIDRaw|JobName|Partition|MaxVMSize|MaxVMSizeNode|MaxVMSizeTask|"
        "AveVMSize|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|MaxPages|MaxPagesNode|"
        "MaxPagesTask|AvePages|MinCPU|MinCPUNode|MinCPUTask|AveCPU|NTasks|AllocCPUS|"
        "Elapsed|State|ExitCode|AveCPUFreq|ReqCPUFreqMin|ReqCPUFreqMax|ReqCPUFreqGov|"
        "ReqMem|ConsumedEnergy|MaxDiskRead|MaxDiskReadNode|MaxDiskReadTask|"
        "AveDiskRead|MaxDiskWrite|MaxDiskWriteNode|MaxDiskWriteTask|AveDiskWrite|"
        "ReqTRES|AllocTRES|TRESUsageInAve|TRESUsageInMax|TRESUsageInMaxNode|"
        "TRESUsageInMaxTask|TRESUsageInMin|TRESUsageInMinNode|TRESUsageInMinTask|"
        "TRESUsageInTot|TRESUsageOutMax|TRESUsageOutMaxNode|TRESUsageOutMaxTask|"
        "TRESUsageOutAve|TRESUsageOutTot")
    fixed = jobs.ok("-l", "-X", "-j", "1").splitlines()
    assert fixed[0].startswith("JobID        JobIDRaw        JobName  Partition  MaxVMSize")
    assert fixed[1].startswith("------------ ------------ ---------- ---------- ----------")


def test_environment_format(jobs):
    env = dict(jobs.c.env, SACCT_FORMAT="JobID,JobName%4,State")
    assert jobs.ok("-X", "-j", "8", env=env) == (
        "JobID        JobN      State \n"
        "------------ ---- ---------- \n"
        "8            a_v+  COMPLETED \n")
    # -o wins over the environment
    assert jobs.ok("-X", "-n", "-P", "-o", "JobID", "-j", "8", env=env) == "8\n"


def test_job_fields_of_finished_running_and_pending_jobs(jobs):
    fields = ("JobID,JobName,State,ExitCode,DerivedExitCode,Reason,NNodes,AllocNodes,"
              "NCPUS,ReqCPUS,Priority,Timelimit,TimelimitRaw,Start,Eligible,End,"
              "NodeList,Comment,User,UID,QOS,Layout,NTasks,Flags,TotalCPU,WorkDir,"
              "Restarts")
    out = jobs.ok("-P", "-n", "-o", fields, "-j", "4,5,7")
    rows = [dict(zip(fields.split(","), line.split("|"))) for line in out.splitlines()]
    to, to_batch, held, pend = rows
    assert (to["State"], to["ExitCode"], to["Timelimit"], to["TimelimitRaw"]) == (
        "TIMEOUT", "0:0", "00:00:02", "1")
    assert (to_batch["JobID"], to_batch["JobName"], to_batch["State"],
            to_batch["ExitCode"], to_batch["Layout"], to_batch["NTasks"],
            to_batch["DerivedExitCode"], to_batch["Timelimit"]) == (
        "4.batch", "batch", "CANCELLED", "0:15", "Unknown", "1", "", "")
    assert to_batch["NodeList"] == jobs.node("to") == to["NodeList"]
    assert (held["State"], held["Start"], held["Eligible"], held["NodeList"],
            held["AllocNodes"], held["Reason"], held["Priority"]) == (
        f"CANCELLED by {jobs.uid}", "None", "Unknown", "None assigned", "0",
        "JobHeldUser", "0")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", held["End"])
    assert (pend["State"], pend["Start"], pend["End"], pend["Reason"],
            pend["Timelimit"], pend["TimelimitRaw"], pend["Comment"], pend["Flags"]) == (
        "PENDING", "Unknown", "Unknown", "JobHeldUser", "00:05:00", "5", "a comment",
        "StartRecieved")
    assert (to["Flags"], to["Restarts"], to["QOS"]) == (
        "SchedMain,StartRecieved", "0", "normal")
    # the killed batch shell's own CPU time (its rusage), as Slurm shows it
    assert re.fullmatch(r"00:00[:.]\d\d\d?", to["TotalCPU"]), to["TotalCPU"]
    assert to["User"] == pwd.getpwuid(jobs.uid).pw_name and to["UID"] == str(jobs.uid)
    assert to["WorkDir"] == str(jobs.c.work)


def test_elapsed_of_a_running_job_grows(jobs):
    read = lambda: int(jobs.ok("-X", "-n", "-P", "-o", "ElapsedRaw", "-j", "6"))
    first = read()
    wait_for(lambda: read() > first, 10, what="the running job's elapsed time to grow")
    elapsed = jobs.ok("-X", "-n", "-P", "-o", "Elapsed,CPUTimeRAW,ElapsedRaw", "-j", "6")
    e, cpu, raw = elapsed.strip().split("|")
    assert re.fullmatch(r"00:\d\d:\d\d", e) and int(cpu) >= int(raw) - 1


def test_tres_fields(jobs):
    out = jobs.ok("-P", "-n", "-o", "ReqTRES,AllocTRES,ReqMem", "-j", "1,7")
    req1, alloc1, mem1 = out.splitlines()[0].split("|")
    assert re.fullmatch(r"billing=1,cpu=1,mem=[0-9.]+[MGT],node=1", req1), req1
    assert alloc1 == req1 and mem1 == req1.split("mem=")[1].split(",")[0]
    batch = out.splitlines()[1].split("|")
    assert batch == ["", re.sub(r"billing=1,", "", alloc1), ""]
    assert out.splitlines()[2].split("|")[1] == ""  # pending: nothing allocated


def test_json(jobs):
    doc = json.loads(jobs.ok("--json", "-j", "2,3,7"))
    assert set(doc) == {"meta", "jobs", "warnings", "errors"}
    assert doc["errors"] == [] and doc["warnings"] == []
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.42"
    assert doc["meta"]["slurm"]["cluster"] == "drover"
    by_id = {j["job_id"]: j for j in doc["jobs"]}
    assert sorted(by_id) == [2, 3, 7]
    failed, cancelled, pending = by_id[2], by_id[3], by_id[7]
    assert failed["state"] == {"current": ["FAILED"], "reason": "None"}
    assert failed["exit_code"]["status"] == ["ERROR"]
    assert failed["exit_code"]["return_code"] == {"set": True, "infinite": False,
                                                  "number": 3}
    assert failed["name"] == "fail3" and failed["account"] == "lab"
    assert failed["partition"] == "debug" and failed["qos"] == "normal"
    assert failed["time"]["limit"] == {"set": False, "infinite": True, "number": 0}
    assert failed["time"]["start"] >= failed["time"]["submission"] > 0
    assert failed["time"]["planned"]["set"] is True
    assert failed["association"]["account"] == "lab" and failed["cluster"] == "drover"
    assert failed["stdout_expanded"] == failed["stderr_expanded"] == (
        f"{jobs.c.work}/slurm-2.out")
    assert failed["stdout"] == f"{jobs.c.work}/slurm-%j.out"
    assert failed["stdin"] == "/dev/null"
    assert failed["flags"] == ["STARTED_ON_SCHEDULE", "START_RECEIVED"]
    step = failed["steps"][0]
    assert step["step"] == {"id": "2.batch", "name": "batch"}
    assert step["state"] == ["FAILED"] and step["nodes"]["count"] == 1
    assert step["exit_code"]["return_code"]["number"] == 3
    types = {t["type"] for t in failed["tres"]["allocated"]}
    assert {"cpu", "mem", "node", "billing"} <= types
    assert cancelled["state"]["current"] == ["CANCELLED"]
    assert cancelled["kill_request_user"] == pwd.getpwuid(jobs.uid).pw_name
    assert cancelled["steps"][0]["exit_code"]["signal"]["id"]["number"] == 15
    assert cancelled["steps"][0]["exit_code"]["status"] == ["SIGNALED"]
    assert pending["state"] == {"current": ["PENDING"], "reason": "JobHeldUser"}
    assert pending["steps"] == [] and pending["hold"] is True
    assert pending["priority"]["number"] == 0
    assert pending["time"]["limit"] == {"set": True, "infinite": False, "number": 5}
    assert pending["comment"]["job"] == "a comment"
    assert json.loads(jobs.ok("--json", "-X", "-j", "2"))["jobs"][0]["steps"] == []


def test_help_texts(jobs):
    out = jobs.ok("-e")
    lines = out.split("\n")
    assert lines[0] == ("Account             AdminComment        AllocCPUS           "
                        "AllocNodes         ")
    assert lines[-2:] == ["WorkDir            ", ""] and len(lines) == 29
    assert jobs.ok("--usage") == "Usage: sacct [options]\n\tUse --help for help\n"
    help_text = jobs.ok("--help")
    assert help_text.startswith("sacct [<OPTION>]" + " " * 60 + "\n")
    assert help_text.endswith(
        "now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]\n\n")
    assert re.fullmatch(r"slurm 22\.05\.8 \(drover .+\)\n", jobs.ok("-V"))


@pytest.mark.parametrize("args, err", [
    (["-o", "Foo"], 'sacct: error: Invalid field requested: "Foo"\n'),
    (["--format=JobID,foo%20,bar"], 'sacct: error: Invalid field requested: "foo"\n'),
    (["-S", "garbage"], "Invalid time specification (pos=0): garbage\n"),
    (["-E", "2026-13-45"], "Invalid time specification (pos=5): 2026-13-45\n"),
    (["-S", "now-1hourx"], "Invalid time specification (pos=9): now-1hourx\n"),
    (["-u", "no_such_user_x"], "sacct: error: Invalid user id: no_such_user_x\n"),
    (["-u", "99999"], "sacct: error: Invalid user id: 99999\n"),
    (["-s", "bogus"], "sacct: fatal: unrecognized job state value 'bogus'\n"),
    (["-s", "r,bogus"], "sacct: fatal: unrecognized job state value 'bogus'\n"),
    (["-j", "abc"], "sacct: fatal: Bad job/step specified: abc\n"),
    (["-j", "12.x"], "sacct: fatal: Bad step specified: 12\n"),
    (["-j", "12_x"], "sacct: fatal: Bad job array element specified: 12\n"),
    (["-j", "1", "extra"], "sacct: error: Unknown arguments:\nsacct: error:  extra\n"),
    (["--help", "-o", "Foo"], 'sacct: error: Invalid field requested: "Foo"\n'),
    (["-S", "tomorrow"], None),
])
def test_bad_input(jobs, args, err):
    rc, out, got = jobs.sacct(*args)
    assert (rc, out) == (1, ""), (args, rc, out, got)
    if err is None:
        assert re.fullmatch(r"sacct: error: Start time \(\S+\) requested is after "
                            r"end time \(\S+\)\.\n", got), got
    else:
        assert got == err


@pytest.mark.parametrize("args, err", [
    (["--bogus"], "unrecognized option '--bogus'"),
    (["-Z"], "invalid option -- 'Z'"),
    (["-r"], "option requires an argument -- 'r'"),
    (["--yaml"], "unrecognized option '--yaml'"),  # not offered by Drover
])
def test_unknown_options_as_getopt_says(jobs, args, err):
    rc, out, got = jobs.sacct(*args)
    assert (rc, out, got) == (1, "", f"{jobs.c.bin / 'sacct'}: {err}\n")


def test_version_and_help_need_no_cluster(tmp_path):
    sacct = Cluster(nodes=1, dir=tmp_path / "none").bin / "sacct"
    env = dict(os.environ, DROVER_CONF=str(tmp_path / "missing.conf"))
    for args, start in ((["-V"], "slurm 22.05.8"), (["-e"], "Account "),
                        (["--usage"], "Usage: sacct")):
        p = __import__("subprocess").run([str(sacct), *args], env=env,
                                         capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and p.stdout.startswith(start) and p.stderr == ""


def test_listing_without_a_controller_fails_cleanly(make_cluster):
    c = make_cluster(nodes=1)
    c.down()
    rc, out, err = c.run(c.bin / "sacct", "-j", "1")
    assert rc == 1 and out == ""
    assert err.startswith("sacct: error: Problem talking to the database: ")


def test_sacct_is_on_the_path_drover_up_prints(make_cluster):
    c = make_cluster(nodes=1)
    assert f"export PATH={c.bin}:$PATH" in c.up_out
    assert (c.bin / "sacct").exists()
    jid = c.sbatch("--wrap", "true")
    c.wait_state(jid, "COMPLETED")
    rc, out, err = c.run("sacct", "-P", "-n", "-o", "JobIDRaw,State", "-j", str(jid))
    assert (rc, out, err) == (0, f"{jid}|COMPLETED\n{jid}.batch|COMPLETED\n", "")


def forgotten(c, jid):
    rc, out, err = c.run(c.bin / "scontrol", "show", "job", str(jid))
    return rc == 1 and "Invalid job id" in err


def test_same_bytes_from_history_after_min_job_age_and_a_crash(make_cluster):
    """Finished jobs leave ctld's memory after MinJobAge; sacct then reads
    them from the store's history and must print exactly what it printed
    while they were in memory, also after ctld is killed and restarted."""
    c = make_cluster(sets={"MinJobAge": "2"})
    ok = c.sbatch("-J", "ok", "--comment", "kept", "--wrap", "true")
    bad = c.sbatch("-J", "bad", "-A", "proj", "--wrap", "exit 3")
    run = c.sbatch("-J", "killed", "--wrap", "sleep 300")
    held = c.sbatch("-J", "held", "-H", "--wrap", "true")
    c.wait_state(run, "RUNNING")
    c.ok(c.bin / "scancel", run, held)
    # sacct, not scontrol, is asked: with MinJobAge=2 a loaded machine may
    # see the jobs leave ctld's memory before it looks
    rows = lambda: c.ok(c.bin / "sacct", "-n", "-P", "-o", "JobID,State,ExitCode",
                        "-j", f"{ok},{bad},{run},{held}")
    wait_for(lambda: f"{run}.batch|CANCELLED|0:15" in rows() and
             all(line.split("|")[1].split()[0] in TERMINAL
                 for line in rows().splitlines()), 30,
             what="every job to end, the killed one with 0:15")
    # the killed job is CANCELLED at once; its node's report (with the
    # batch shell's usage) follows, and only then is its record final
    usage = lambda: c.ok(c.bin / "sacct", "-n", "-P", "-o", "JobID,MaxRSS",
                         "-j", str(run))
    wait_for(lambda: any(l.startswith(f"{run}.batch|") and l.split("|")[1]
                         for l in usage().splitlines()), 30,
             what="the killed job's node to report its end")
    sacct = lambda: c.ok(c.bin / "sacct", "-P", "-o", "ALL,Restarts",
                         "-j", f"{ok},{bad},{run},{held}")
    before = sacct()
    assert len(before.splitlines()) == 1 + 2 + 2 + 2 + 1
    wait_for(lambda: all(forgotten(c, j) for j in (ok, bad, run, held)), 30,
             what="MinJobAge to drop the finished jobs from memory")
    assert sacct() == before
    c.kill9("ctld")
    c.up()
    assert sacct() == before


def test_non_root_sees_its_own_jobs_by_default(make_cluster):
    """A user who is not root, without -u, -a or -j, is shown only their
    own jobs: sacct asks for its uid."""
    c = make_cluster(nodes=1, owner="nobody")
    jid = c.sbatch("--wrap", "true")
    c.wait_state(jid, "COMPLETED")
    # the default window ends now, and takes jobs eligible before it
    submitted = time.time()
    wait_for(lambda: time.time() >= int(submitted) + 1, 5, what="the next second")
    q = lambda *a: c.ok(c.bin / "sacct", "-X", "-n", "-P", "-o", "JobID,User,UID", *a)
    assert q() == f"{jid}|nobody|65534\n"
    assert q("-u", "root") == ""
    assert q("-a") == q("-j", str(jid)) == f"{jid}|nobody|65534\n"


def test_slurm_time_format(jobs):
    env = dict(jobs.c.env, SLURM_TIME_FORMAT="%s")
    submit, eligible = jobs.ok("-X", "-n", "-P", "-o", "Submit,Eligible", "-j", "7",
                               env=env).strip().split("|")
    assert abs(int(submit) - time.time()) < 3600 and eligible == "Unknown"
    env["SLURM_TIME_FORMAT"] = "relative"
    start = jobs.ok("-X", "-n", "-P", "-o", "Start", "-j", "1", env=env).strip()
    assert re.fullmatch(r"\d\d:\d\d:\d\d", start), start


def test_toil_query_in_any_time_zone(jobs):
    """Toil asks `sacct -n -j IDS --format JobIDRaw,State,ExitCode -P -S
    1970-01-01`; east of UTC that start is before the epoch."""
    for tz in ("UTC", "Europe/Berlin", "Asia/Tokyo", "America/New_York"):
        env = dict(jobs.c.env, TZ=tz)
        assert jobs.ok("-n", "-j", "1,2,4", "--format", "JobIDRaw,State,ExitCode", "-P",
                       "-S", "1970-01-01", env=env) == (
            "1|COMPLETED|0:0\n1.batch|COMPLETED|0:0\n2|FAILED|3:0\n2.batch|FAILED|3:0\n"
            "4|TIMEOUT|0:0\n4.batch|CANCELLED|0:15\n"), tz
