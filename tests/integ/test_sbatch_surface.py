"""sbatch as client tools drive it (COMPAT-SURFACE 2.1, rows 1-3 and 8):
the exact stdout of every submission form with nothing on stderr, the
#SBATCH parsing rules, input variables and their precedence (script <
environment < command line, as sbatch(1) says), -M/--clusters, --wait, and
Slurm's texts and exit statuses for what it refuses, with nothing
submitted then."""

import os
import re

import pytest

from conftest import wait_for


def submitted(out):
    m = re.fullmatch(r"Submitted batch job (\d+)\n", out)
    assert m, repr(out)
    return int(m.group(1))


def field(c, jid, key):
    return c.show_job(jid)[key]


def test_script_file_stdin_dev_stdin_and_wrap(cluster):
    script = "#!/bin/sh\n#SBATCH -H\ntrue\n"
    path = cluster.write("job.sh", script)
    forms = [((str(path),), None, "job.sh", f"{path}"),
             ((), script, "sbatch", "(null)"),
             (("/dev/stdin",), script, "stdin", "/dev/stdin"),
             (("-H", "--wrap", "true"), None, "wrap", "(null)")]
    for args, stdin, name, command in forms:
        rc, out, err = cluster.run("sbatch", *args, input=stdin)
        assert (rc, err) == (0, ""), (args, err)
        jid = submitted(out)
        job = cluster.show_job(jid)
        assert (job["JobName"], job["Command"]) == (name, command), args


def test_parsable_and_clusters(cluster):
    rc, out, err = cluster.run("sbatch", "-H", "--parsable", "--wrap", "true")
    assert (rc, err) == (0, "") and re.fullmatch(r"\d+\n", out)
    # with -M Slurm names the cluster that took the job
    for flag in ("-M", "--clusters", "--cluster"):
        rc, out, err = cluster.run("sbatch", "-H", "--parsable", flag, "drover",
                                   "--wrap", "true")
        assert (rc, err) == (0, "") and re.fullmatch(r"\d+;drover\n", out), out
    rc, out, err = cluster.run("sbatch", "-H", "-M", "all", "--wrap", "true")
    assert (rc, err) == (0, "")
    assert re.fullmatch(r"Submitted batch job \d+ on cluster drover\n", out), out
    before = cluster.job_ids()
    assert cluster.run("sbatch", "-M", "nope", "--wrap", "true") == (
        1, "", "sbatch: error: No cluster 'nope' known by database.\n"
               "sbatch: error: 'nope' can't be reached now, or it is an invalid "
               "entry for --cluster.  Use 'sacctmgr list clusters' to see available "
               "clusters.\n")
    assert cluster.job_ids() == before


def test_wrap_becomes_a_sh_script(cluster):
    jid = cluster.sbatch("--wrap", "cat $0")
    cluster.wait_done(jid)
    assert (cluster.work / f"slurm-{jid}.out").read_text() == "#!/bin/sh\ncat $0\n"


DIRECTIVES = """#!/bin/sh
#SBATCH --job-name="my job"   # a trailing comment
#SBATCH --comment 'a b' # another
#SBATCH -t 5 # minutes
#SBATCH -H
#SBATCH-p debug
#SBATCH --no-requeue
# a plain comment

#SBATCH --exclusive
echo first command
#SBATCH -J too-late
"""


def test_directives(cluster):
    path = cluster.write("d.sh", DIRECTIVES)
    rc, out, err = cluster.run("sbatch", path)
    assert (rc, err) == (0, "")
    job = cluster.show_job(submitted(out))
    assert job["JobName"] == "my"  # parse_fields stops at the space
    text = cluster.ok("scontrol", "show", "job", str(job["JobId"]))
    assert "JobName=my job\n" in text and "Comment=a b \n" in text
    assert (job["TimeLimit"], job["JobState"], job["Reason"], job["OverSubscribe"]) == (
        "00:05:00", "PENDING", "JobHeldUser", "NO")


def test_command_line_over_environment_over_script(cluster):
    path = cluster.write("p.sh", "#!/bin/sh\n#SBATCH -J script -t 10 -H\n"
                                 "#SBATCH --comment=script\ntrue\n")
    env = dict(cluster.env, SBATCH_JOB_NAME="env", SBATCH_TIMELIMIT="20")
    rc, out, err = cluster.run("sbatch", path, env=env)
    assert (rc, err) == (0, "")
    job = cluster.show_job(submitted(out))
    assert (job["JobName"], job["TimeLimit"]) == ("env", "00:20:00")
    rc, out, err = cluster.run("sbatch", "-J", "cli", path, env=env)
    job = cluster.show_job(submitted(out))
    assert (job["JobName"], job["TimeLimit"]) == ("cli", "00:20:00")


def test_input_variables(cluster):
    env = dict(cluster.env, SBATCH_ACCOUNT="proj", SBATCH_QOS="high",
               SBATCH_OUTPUT="o-%j.txt", SBATCH_ERROR="e-%j.txt",
               SBATCH_EXCLUSIVE="", SBATCH_CLUSTERS="drover",
               SBATCH_NO_REQUEUE="", SBATCH_DEBUG="0")
    rc, out, err = cluster.run("sbatch", "-H", "--wrap", "true", env=env)
    assert (rc, err) == (0, "")
    m = re.fullmatch(r"Submitted batch job (\d+) on cluster drover\n", out)
    assert m, out
    jid = int(m.group(1))
    job = cluster.show_job(jid)
    assert (job["Account"], job["QOS"], job["OverSubscribe"]) == ("proj", "high", "NO")
    assert job["StdOut"] == f"{cluster.work}/o-{jid}.txt"
    assert job["StdErr"] == f"{cluster.work}/e-{jid}.txt"
    # SBATCH_CONSTRAINT is -C: a feature no node has is Slurm's refusal
    env = dict(cluster.env, SBATCH_CONSTRAINT="any")
    assert cluster.run("sbatch", "--wrap", "true", env=env) == (
        1, "", "sbatch: error: Batch job submission failed: "
               "Invalid feature specification\n")
    env = dict(cluster.env, SBATCH_PARTITION="nosuch")
    assert cluster.run("sbatch", "--wrap", "true", env=env) == (
        1, "", "sbatch: error: invalid partition specified: nosuch\n"
               "sbatch: error: Batch job submission failed: "
               "Invalid partition name specified\n")


@pytest.mark.parametrize("how", ["--wait", "-W", "SBATCH_WAIT"])
def test_wait_exits_with_the_job(cluster, how):
    env = dict(cluster.env, SBATCH_WAIT="1") if how == "SBATCH_WAIT" else None
    args = [] if how == "SBATCH_WAIT" else [how]
    rc, out, err = cluster.run("sbatch", *args, "-o", "/dev/null", "--wrap",
                               "sleep 1; exit 3", env=env)
    assert (rc, err) == (3, "")
    jid = submitted(out)
    assert field(cluster, jid, "JobState") == "FAILED"
    rc, out, err = cluster.run("sbatch", "--parsable", *args, "-o", "/dev/null",
                               "--wrap", "true", env=env)
    assert (rc, err) == (0, "") and re.fullmatch(r"\d+\n", out)
    assert field(cluster, int(out), "JobState") == "COMPLETED"


@pytest.mark.parametrize("args, stdin, status, message", [
    (["--foo"], None, 255,
     "sbatch: unrecognized option '--foo'\nTry \"sbatch --help\" for more information\n"),
    (["--foo=1", "--wrap", "true"], None, 255,
     "sbatch: unrecognized option '--foo=1'\nTry \"sbatch --help\" for more "
     "information\n"),
    (["-Z", "--wrap", "true"], None, 255,
     "sbatch: invalid option -- 'Z'\nTry \"sbatch --help\" for more information\n"),
    (["-t", "abc", "--wrap", "true"], None, 255,
     "sbatch: error: Invalid --time specification\n"),
    (["-N", "abc", "--wrap", "true"], None, 255,
     "sbatch: error: \"abc\" is not a valid node count\n"),
    (["-N", "4-2", "--wrap", "true"], None, 255,
     "sbatch: error: Maximum node count 2 is less than minimum node count 4\n"),
    (["/nonexistent/job.sh"], None, 1, "sbatch: error: Unable to open file "
                                       "/nonexistent/job.sh\n"),
    (["--wrap", "true", "extra"], None, 1,
     "sbatch: error: Script arguments not permitted with --wrap option\n"),
    ([], "", 1, "sbatch: error: Batch script is empty!\n"),
    ([], "#!/bin/sh\n#SBATCH --foo\ntrue\n", 255,
     "sbatch: unrecognized option '--foo'\nTry \"sbatch --help\" for more "
     "information\n"),
    ([], "#!/bin/sh\n#SBATCH -H stray --comment=x\ntrue\n", 255,
     "sbatch: error: Invalid directive found in batch script: stray\n"),
    ([], "#!/bin/sh\n#SBATCH -t abc\ntrue\n", 255,
     "sbatch: error: Invalid --time specification\n"),
    # ignoring these would run the job as someone else or with another
    # environment: refused until Drover implements them
    (["--uid=65534", "--wrap", "true"], None, 1,
     "sbatch: error: --uid is not supported by Drover yet\n"),
    (["--gid", "65534", "--wrap", "true"], None, 1,
     "sbatch: error: --gid is not supported by Drover yet\n"),
    (["--export-file=/dev/null", "--wrap", "true"], None, 1,
     "sbatch: error: --export-file is not supported by Drover yet\n"),
])
def test_refused(cluster, args, stdin, status, message):
    keep = cluster.sbatch("-H", "--wrap", "true")
    assert cluster.run("sbatch", *args, input=stdin) == (status, "", message)
    assert cluster.job_ids() == [keep]


def test_help_and_version_go_to_stdout(cluster):
    rc, out, err = cluster.run("sbatch", "--version")
    assert (rc, err) == (0, "") and re.fullmatch(r"slurm 22\.05\.8 \(drover .+\)\n", out)
    rc, out, err = cluster.run("sbatch", "--help")
    assert (rc, err) == (0, "") and out.startswith("Usage: sbatch ")


def test_quiet(cluster):
    """-Q/--quiet: nothing on success, not even --parsable's id or
    --test-only's line; errors still print. A directive's -Q is lost, as in
    Slurm 22.05 (checked on its sbatch)."""
    before = cluster.job_ids()
    for flag in ("-Q", "--quiet"):
        assert cluster.run("sbatch", flag, "-H", "--wrap", "true") == (0, "", "")
    assert cluster.run("sbatch", "-Q", "--parsable", "-H", "--wrap", "true") == (0, "", "")
    assert cluster.run("sbatch", "-Q", "--test-only", "--wrap", "true") == (0, "", "")
    assert len(cluster.job_ids()) == len(before) + 3
    rc, out, err = cluster.run("sbatch", input="#!/bin/sh\n#SBATCH -Q\n#SBATCH -H\ntrue\n")
    assert (rc, err) == (0, "")
    submitted(out)
    assert cluster.run("sbatch", "-Q", "-N", "4-2", "--wrap", "true") == (
        255, "", "sbatch: error: Maximum node count 2 is less than minimum node count 4\n")
    assert len(cluster.job_ids()) == len(before) + 4
