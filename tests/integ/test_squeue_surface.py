"""squeue's surface as workflow tools parse it (COMPAT-SURFACE.md 2.2, rows
14 and 15), byte for byte as a real Slurm 22.05 squeue prints it, against a
live cluster holding a job in every state that exists: completed, failed
with exit 3, timed out, cancelled, held (pending) and running. One cluster
serves the whole module; every test only reads it, except the ones that
submit jobs of their own and clean them up."""

import json
import os
import pwd
import re
import shutil

import pytest

from conftest import Cluster, wait_for

USER = pwd.getpwuid(os.geteuid()).pw_name
HEADER = ("             JOBID PARTITION     NAME     USER ST       TIME  NODES "
          "NODELIST(REASON)")


@pytest.fixture(scope="module")
def sc():
    """The cluster and its jobs: {name: id}."""
    c = Cluster(nodes=2)
    try:
        c.up()
        jobs = {
            "ok": c.sbatch("-J", "ok", "--wrap", "true"),
            "fail3": c.sbatch("-J", "fail3", "--wrap", "exit 3"),
            "to": c.sbatch("-J", "to", "-t", "0:2", "--wrap", "sleep 60"),
            "held": c.sbatch("-J", "held", "-H", "--wrap", "true"),
            "cancel": c.sbatch("-J", "cancelme", "--wrap", "sleep 300"),
            "run": c.sbatch("-J", "running", "-t", "10:00", "--wrap", "sleep 300"),
        }
        c.wait_state(jobs["cancel"], "RUNNING")
        c.ok("scancel", str(jobs["cancel"]))
        for name, state in (("ok", "COMPLETED"), ("fail3", "FAILED"),
                            ("to", "TIMEOUT"), ("cancel", "CANCELLED"),
                            ("run", "RUNNING")):
            c.wait_state(jobs[name], state, timeout=60)
        c.jobs = jobs
        yield c
    finally:
        c.down()
        c.kill_leftovers()
        shutil.rmtree(c.dir, ignore_errors=True)


def squeue(c, *args, env=None):
    """Runs squeue; asserts success and an empty stderr; returns stdout."""
    rc, out, err = c.run("squeue", *args, env=env)
    assert (rc, err) == (0, ""), f"squeue {args}: rc={rc} stderr={err!r}"
    return out


def elapsed(job):
    """scontrol's RunTime (HH:MM:SS or D-HH:MM:SS) as squeue's %M prints it."""
    days, _, hms = job["RunTime"].rpartition("-")
    h, m, s = (int(x) for x in hms.split(":"))
    if days:
        return f"{int(days)}-{h:02}:{m:02}:{s:02}"
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


def default_line(c, name, time=None):
    jid = c.jobs[name]
    job = c.show_job(jid)
    st = {"COMPLETED": "CD", "FAILED": "F", "TIMEOUT": "TO", "CANCELLED": "CA",
          "PENDING": "PD", "RUNNING": "R"}[job["JobState"]]
    reason = (f"({job['Reason']})" if job["JobState"] in ("PENDING", "FAILED", "TIMEOUT")
              else job["NodeList"] if job["NodeList"] != "(null)" else "")
    return (f"{jid:>18} {job['Partition'][:9]:>9} {job['JobName'][:8]:>8} "
            f"{USER[:8]:>8} {st:>2} {time or elapsed(job):>10} {1:>6} {reason}")


def running_time(out, jid):
    """The TIME column of job jid in the default format (it moves)."""
    m = re.search(rf"^ +{jid} .* R +(\d+:\d\d) +1 ", out, re.M)
    assert m, out
    return m.group(1)


# Slurm sorts by partition, then the compact state as text, then priority.
ORDER = ["cancel", "ok", "fail3", "held", "run", "to"]


def test_default_format_and_order(sc):
    out = squeue(sc, "-t", "all")
    t = running_time(out, sc.jobs["run"])
    want = [HEADER] + [default_line(sc, n, t if n == "run" else None) for n in ORDER]
    assert out == "\n".join(want) + "\n"
    # without -t: only pending and running, same order
    out = squeue(sc)
    t = running_time(out, sc.jobs["run"])
    assert out == "\n".join([HEADER, default_line(sc, "held"),
                             default_line(sc, "run", t)]) + "\n"
    assert squeue(sc, "-h", "-t", "all").splitlines()[0] == default_line(sc, "cancel")


def test_literal_separators_and_fields(sc):
    j = sc.jobs
    out = squeue(sc, "-t", "all", "-S", "i", "-o", "%i|%T")
    assert out == "JOBID|STATE\n" + "".join(
        f"{j[n]}|{sc.state(j[n])}\n" for n in ("ok", "fail3", "to", "held", "cancel", "run"))
    out = squeue(sc, "-h", "-t", "CD,F,TO", "-S", "i", "-o", "%i %t %M")
    assert out == "".join(f"{j[n]} {st} {elapsed(sc.show_job(j[n]))}\n"
                          for n, st in (("ok", "CD"), ("fail3", "F"), ("to", "TO")))
    out = squeue(sc, "-h", "-j", str(j["held"]), "-o", "%i|%t|%T|%M|%P|%j|%u|%D|%R")
    assert out == f"{j['held']}|PD|PENDING|0:00|debug|held|{USER}|1|(JobHeldUser)\n"
    # %% disappears and the letter after it is a field, as in Slurm
    assert squeue(sc, "-h", "-j", str(j["held"]), "-o", "x%i %%t!") == f"x{j['held']} PD!\n"
    # widths: "." right-justifies; values are cut to the width, but not %N (nor a
    # node list in %R) when right-justified
    out = squeue(sc, "-h", "-j", str(j["held"]), "-o", "%.3j|%3j|%10T|%.10T|%.3R|%3R")
    assert out == "hel|hel|PENDING   |   PENDING|(Jo|(Jo\n"
    # a node list is never cut when right-justified
    out = squeue(sc, "-h", "-j", str(j["run"]), "-o", "%.1R|%1R|%.1N|%.3N")
    node = sc.show_job(j["run"])["NodeList"]
    assert out == f"{node}|{node[0]}|{node}|{node:>3}\n"
    # fields Drover has no notion of print Slurm's placeholders
    out = squeue(sc, "-h", "-j", str(j["held"]),
                 "-o", "%o|%k|%a|%w|%v|%z|%X|%d|%f|%H|%e|%S|%L|%p|%Q")
    account = "root" if os.getuid() == 0 else "(null)"  # the DefaultAccount
    assert out == f"(null)|(null)|{account}|(null)|(null)|*:*:*|N/A|0|(null)|*|N/A|N/A|" \
                  "UNLIMITED|0.00000000000000|0\n"


def test_unknown_letters_are_reported_and_printed(sc):
    rc, out, err = sc.run("squeue", "-h", "-j", str(sc.jobs["held"]), "-o", "%i|%#|%5")
    assert (rc, out) == (0, f"{sc.jobs['held']}|%#|%5\n")
    assert err == ("squeue: error: Invalid job format specification: #\n"
                   "squeue: error: Invalid job format specification: \n")


def test_format_long(sc):
    j = sc.jobs
    out = squeue(sc, "-t", "all", "-O", "JobArrayID,StateCompact,Reason")
    want = ["JOBID               ST                  REASON              "]
    for n in ORDER:
        job = sc.show_job(j[n])
        st = default_line(sc, n).split()[4]
        want.append(f"{j[n]:<20}{st:<20}{job['Reason']:<20}")
    assert out == "\n".join(want) + "\n"
    assert "JobHeldUser" in out and "NonZeroExitCode" in out and "TimeLimit" in out
    out = squeue(sc, "-h", "-j", str(j["held"]), "-O", "JobID:8,State:.12,Name:,Reason:3|")
    assert out == f"{j['held']:<8}     PENDINGheldJob|\n"
    rc, out, err = sc.run("squeue", "-h", "-j", str(j["held"]), "-O", "JobID,Bogus")
    assert (rc, out) == (0, f"{j['held']:<20}\n")
    assert err == "squeue: error: Invalid job format specification: Bogus\n"
    rc, out, err = sc.run("squeue", "-o", "%i", "-O", "JobID")
    assert (rc, out) == (1, "")
    assert err == "squeue: error: -O (--Format) is incompatible with -o (--format)\n"


def test_finished_jobs_agree_with_scontrol(sc):
    out = squeue(sc, "-h", "-t", "all", "-O", "JobID:10,State:12,exit_code:8,Reason:20")
    for line in out.splitlines():
        jid, state, raw, reason = line.split()
        job = sc.show_job(int(jid))
        assert state == job["JobState"], line
        rc, sig = (int(x) for x in job["ExitCode"].split(":"))
        assert int(raw) == (rc << 8 | sig), (line, job["ExitCode"])
        assert reason == job["Reason"], line
    fail = sc.show_job(sc.jobs["fail3"])
    assert (fail["JobState"], fail["ExitCode"]) == ("FAILED", "3:0")
    assert squeue(sc, "-h", "-j", str(sc.jobs["fail3"]), "-t", "all",
                  "-O", "exit_code") == f"{768:<20}\n"


def test_states_filter_and_all(sc):
    j = sc.jobs
    assert squeue(sc, "-h", "-t", "all", "-S", "i", "-o", "%i").split() == \
        [str(j[n]) for n in ("ok", "fail3", "to", "held", "cancel", "run")]
    assert squeue(sc, "-h", "-t", "CA,TIMEOUT", "-o", "%i").split() == \
        [str(j["cancel"]), str(j["to"])]
    assert squeue(sc, "-h", "-t", "pd", "-o", "%i") == f"{j['held']}\n"
    rc, out, err = sc.run("squeue", "-t", "bogus")
    assert (rc, out) == (1, "")
    assert err.startswith("squeue: error: Invalid job state specified: bogus\n"
                          "squeue: error: Valid job states include: PENDING,RUNNING,")
    assert err.endswith(",STAGE_OUT,STOPPED\n\n")


def test_job_ids(sc):
    j = sc.jobs
    rc, out, err = sc.run("squeue", "-j", "999999")
    assert (rc, out, err) == (1, "", "slurm_load_jobs error: Invalid job id specified\n")
    rc, out, err = sc.run("squeue", "-h", "--job=999999", "-t", "all")
    assert (rc, out, err) == (1, "", "slurm_load_jobs error: Invalid job id specified\n")
    # several ids: Slurm never complains, whether any is known or not
    assert squeue(sc, "-j", "999999,999998") == HEADER + "\n"
    assert squeue(sc, "-h", "-j", f"999999,{j['held']}", "-o", "%i") == f"{j['held']}\n"
    # a known finished job is hidden without -t, and that is no error
    assert squeue(sc, "-j", str(j["ok"])) == HEADER + "\n"
    assert squeue(sc, "-h", "-j", str(j["ok"]), "-t", "all", "-o", "%i %t") == \
        f"{j['ok']} CD\n"
    assert squeue(sc, "-h", "-o", "%i", "-j", f"{j['run']},{j['held']}") == \
        f"{j['held']}\n{j['run']}\n"
    assert squeue(sc, "-h", "-o", "%i", "-j", str(j["held"]), "-u", "nobody") == ""
    rc, out, err = sc.run("squeue", "-j", "abc")
    assert (rc, out, err) == (1, "", "squeue: error: Invalid job id: abc\n")
    assert squeue(sc, "-h", "-r", "-j", str(j["held"]), "-o", "%i") == f"{j['held']}\n"


def test_users_names_partitions(sc):
    j = sc.jobs
    assert squeue(sc, "-h", "-u", USER, "-t", "all", "-o", "%i") != ""
    assert squeue(sc, "-h", "--me", "-o", "%i").split() == [str(j["held"]), str(j["run"])]
    assert squeue(sc, "-h", "-u", "nobody", "-o", "%i") == ""
    rc, out, err = sc.run("squeue", "-h", "-u", "no-such-user-here", "-o", "%i")
    assert (rc, out, err) == (0, "", "squeue: error: Invalid user: no-such-user-here\n\n")
    assert squeue(sc, "-h", "--name", "held,running", "-o", "%j") == "held\nrunning\n"
    assert squeue(sc, "-h", "-p", "nosuch", "-o", "%i") == ""
    assert squeue(sc, "-h", "-p", "debug", "-o", "%i") != ""


def test_sort(sc):
    j = sc.jobs
    ids = [j[n] for n in ("ok", "fail3", "to", "held", "cancel", "run")]
    assert squeue(sc, "-h", "-t", "all", "-S", "i", "-o", "%i").split() == \
        [str(i) for i in ids]
    assert squeue(sc, "-h", "-t", "all", "-S", "-i", "-o", "%i").split() == \
        [str(i) for i in reversed(ids)]
    assert squeue(sc, "-h", "-t", "all", "-S", "j", "-o", "%j").split() == \
        sorted(["ok", "fail3", "to", "held", "cancelme", "running"])
    assert squeue(sc, "-h", "-t", "all", "-S", "-T,i", "-o", "%T").split() == \
        ["TIMEOUT", "RUNNING", "PENDING", "FAILED", "COMPLETED", "CANCELLED"]
    rc, out, err = sc.run("squeue", "-S", "Z")
    assert (rc, out, err) == (1, HEADER + "\n",
                              "squeue: error: Invalid sort specification: Z\n")


def test_environment_variables(sc):
    j = sc.jobs
    env = dict(sc.env, SQUEUE_FORMAT="%i:%t", SQUEUE_SORT="-i", SQUEUE_STATES="all")
    out = squeue(sc, "-h", env=env)
    assert out.split() == [f"{j[n]}:{st}" for n, st in (
        ("run", "R"), ("cancel", "CA"), ("held", "PD"), ("to", "TO"),
        ("fail3", "F"), ("ok", "CD"))]
    # the command line wins over each of them
    assert squeue(sc, "-h", "-o", "%i", "-S", "i", "-t", "PD", env=env) == f"{j['held']}\n"
    # SQUEUE_FORMAT wins over SQUEUE_FORMAT2; -o, -O and -l over both
    env2 = dict(sc.env, SQUEUE_FORMAT2="JobID:8,StateCompact:3")
    assert squeue(sc, "-j", str(j["held"]), env=env2) == f"JOBID   ST \n{j['held']:<8}PD \n"
    assert squeue(sc, "-h", "-j", str(j["held"]), env=dict(env2, SQUEUE_FORMAT="%i")) == \
        f"{j['held']}\n"
    assert squeue(sc, "-h", "-j", str(j["held"]), "-o", "%t", env=env2) == "PD\n"
    out = squeue(sc, "-j", str(j["held"]), "-l", env=env)
    assert out.splitlines()[1].split() == ["JOBID", "PARTITION", "NAME", "USER", "STATE",
                                           "TIME", "TIME_LIMI", "NODES",
                                           "NODELIST(REASON)"]
    for var, value, other in (("SQUEUE_USERS", "nobody", ["-u", USER]),
                              ("SQUEUE_NAMES", "nosuch", ["--name", "held"]),
                              ("SQUEUE_PARTITION", "nosuch", ["-p", "debug"]),
                              ("SQUEUE_ACCOUNT", "nosuch", ["-A", ""]),
                              ("SQUEUE_STATES", "CD", ["-t", "PD"])):
        e = dict(sc.env, **{var: value})
        assert squeue(sc, "-h", "-o", "%i", "-j", str(j["held"]), env=e) == "", var
        if var != "SQUEUE_ACCOUNT":
            assert squeue(sc, "-h", "-o", "%i", "-j", str(j["held"]), *other, env=e) == \
                f"{j['held']}\n", var


def test_long_listing_has_the_date_line(sc):
    out = squeue(sc, "-l", "-j", str(sc.jobs["held"]))
    date, head, row = out.splitlines()
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", date), date
    assert head == ("             JOBID PARTITION     NAME     USER    STATE       TIME "
                    "TIME_LIMI  NODES NODELIST(REASON)")
    assert row == (f"{sc.jobs['held']:>18}     debug     held {USER[:8]:>8}  PENDING       "
                   "0:00 UNLIMITED      1 (JobHeldUser)")
    rc, out, err = sc.run("squeue", "-l", "-o", "%i")
    assert (rc, out) == (1, "")
    assert err == ("squeue: fatal: Options -o(--format) and -l(--long) are mutually "
                   "exclusive. Please remove one and retry.\n")


def test_json(sc):
    j = sc.jobs
    doc = json.loads(squeue(sc, "--json", "-t", "all"))
    assert set(doc) >= {"jobs", "last_backfill", "last_update", "meta", "warnings",
                        "errors"}
    assert doc["warnings"] == [] and doc["errors"] == []
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.42"
    assert doc["meta"]["command"] == ["squeue", "--json", "-t", "all"]
    assert doc["meta"]["slurm"]["cluster"] == "drover"
    by_id = {r["job_id"]: r for r in doc["jobs"]}
    assert sorted(by_id) == sorted(j.values())
    for name, jid in j.items():
        rec, job = by_id[jid], sc.show_job(jid)
        assert rec["job_state"] == [job["JobState"]], name
        assert rec["name"] == job["JobName"] and rec["user_name"] == USER
        assert rec["partition"] == "debug" and rec["state_reason"] == job["Reason"]
        assert rec["user_id"] == os.geteuid() and isinstance(rec["group_id"], int)
        for key in ("submit_time", "start_time", "end_time", "eligible_time", "priority",
                    "cpus", "node_count", "tasks", "time_limit"):
            assert set(rec[key]) == {"set", "infinite", "number"}, (name, key)
        assert rec["current_working_directory"] == str(sc.work)
        assert rec["standard_output"] == f"{sc.work}/slurm-{jid}.out"
    fail = by_id[j["fail3"]]["exit_code"]
    assert fail["status"] == ["ERROR"]
    assert fail["return_code"] == {"set": True, "infinite": False, "number": 3}
    assert by_id[j["ok"]]["exit_code"]["status"] == ["SUCCESS"]
    assert by_id[j["run"]]["time_limit"] == {"set": True, "infinite": False, "number": 10}
    assert by_id[j["ok"]]["time_limit"]["infinite"] is True
    assert by_id[j["held"]]["hold"] is True and by_id[j["held"]]["priority"]["number"] == 0
    assert by_id[j["run"]]["nodes"] in ("n1", "n2")
    # filters apply to --json as to the table
    doc = json.loads(squeue(sc, "--json", "-t", "PD"))
    assert [r["job_id"] for r in doc["jobs"]] == [j["held"]]
    rc, out, err = sc.run("squeue", "--yaml")
    assert (rc, out) == (1, "")
    assert err == "squeue: unrecognized option '--yaml'\nTry \"squeue --help\" for more information\n"


def test_no_stderr_and_help(sc):
    for args in ([], ["-h"], ["-t", "all"], ["--me"], ["-O", "JobID"], ["-l"], ["-r"],
                 ["--json"], ["-S", "-t,i"], ["-a"], ["-v"]):
        squeue(sc, *args)
    assert squeue(sc, "--usage").startswith("Usage: squeue [-A account]")
    assert squeue(sc, "--version").startswith("slurm 22.05")


def test_qos_nodelist_reservation_and_licenses_filter(make_cluster):
    """-q, -w and their variables select; -R and -L name what no Drover job
    has, so nothing shows; an unknown node is Slurm's error."""
    c = make_cluster(nodes=2)
    c.write("hold.sh", "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\n")
    run = c.sbatch("-o", "/dev/null", "hold.sh")
    c.wait_state(run, "RUNNING")
    node = c.show_job(run)["NodeList"]
    other = "n2" if node == "n1" else "n1"
    pend = c.sbatch("-H", "-q", "high", "--wrap", "true")

    def ids(*args, env=None):
        return c.ok("squeue", "-h", "-o", "%i", *args, env=env).split()

    assert ids("-w", node) == [str(run)]
    assert ids("--nodelist", other) == []
    assert ids("-q", "high") == [str(pend)]
    assert ids(env=dict(c.env, SQUEUE_QOS="normal")) == [str(run)]
    assert ids("-R", "resv") == [] and ids("--licenses", "lic") == []
    assert ids(env=dict(c.env, SQUEUE_LICENSES="lic")) == []
    assert c.run("squeue", "-w", "nosuch") == (1, "", "squeue: error: Invalid node name nosuch\n")
    (c.work / "go").touch()
