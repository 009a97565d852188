"""sinfo's surface as workflow tools parse it (COMPAT-SURFACE.md 2.5, rows
22 and 23), byte for byte as a real Slurm 22.05 sinfo prints it: the
partition list of `-o %P`, Toil's `-a -o "%P %G %l %p %c %m"`, the default,
-N, -l and -s tables, widths, -O, sorting, the SINFO_* variables and
--json, against a live two-node cluster (2 CPUs, 4096 MiB and 2 fake GPUs
a node)."""

import json
import re
import shutil

import pytest

from conftest import Cluster, wait_for

DEFAULT_HEAD = "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"
DATE = r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}"


@pytest.fixture(scope="module")
def si():
    c = Cluster(nodes=2)
    try:
        c.up(extra=["--gpus", "2", "--cpus", "2", "--mem", "4096"])
        wait_for(lambda: c.ok("sinfo", "-h", "-o", "%T") == "idle\n", 30,
                 what="both nodes idle")
        yield c
    finally:
        c.down()
        c.kill_leftovers()
        shutil.rmtree(c.dir, ignore_errors=True)


def sinfo(c, *args, env=None):
    """Runs sinfo; asserts success and an empty stderr; returns stdout."""
    rc, out, err = c.run("sinfo", *args, env=env)
    assert (rc, err) == (0, ""), f"sinfo {args}: rc={rc} stderr={err!r}"
    return out


def test_partition_list_and_toil_row(si):
    assert sinfo(si, "-o", "%P") == "PARTITION\ndebug*\n"
    assert sinfo(si, "-h", "-o", "%P") == "debug*\n"
    assert sinfo(si, "-a", "-o", "%P %G %l %p %c %m") == \
        "PARTITION GRES TIMELIMIT PRIO_TIER CPUS MEMORY\ndebug* gpu:2 infinite 1 2 4096\n"
    assert sinfo(si, "-h", "-o", "%P %a %D %T") == "debug* up 2 idle\n"


def test_gres_null_without_gpus(make_cluster):
    c = make_cluster(nodes=1)
    assert c.ok("sinfo", "-a", "-o", "%P %G %l").splitlines()[1] == "debug* (null) infinite"


def test_tables(si):
    assert sinfo(si) == f"{DEFAULT_HEAD}\ndebug*       up   infinite      2   idle n[1-2]\n"
    assert sinfo(si, "-N") == ("NODELIST   NODES PARTITION STATE \n"
                               "n1             1    debug* idle  \n"
                               "n2             1    debug* idle  \n")
    assert sinfo(si, "-s") == ("PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
                               "debug*       up   infinite          0/2/0/2 n[1-2]\n")
    date, head, row = sinfo(si, "-l").splitlines()
    assert re.fullmatch(DATE, date), date
    assert head == ("PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  "
                    "NODES       STATE NODELIST")
    assert row == ("debug*       up   infinite 1-infinite   no       NO        all      "
                   "2        idle n[1-2]")
    lines = sinfo(si, "-N", "-l").splitlines()
    assert re.fullmatch(DATE, lines[0])
    assert lines[1:] == [
        "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT "
        "AVAIL_FE REASON              ",
        "n1             1    debug*        idle 2       2:1:1   4096        0      1 "
        "  (null) none                ",
        "n2             1    debug*        idle 2       2:1:1   4096        0      1 "
        "  (null) none                "]


def test_widths_and_bad_letters(si):
    # the default partition's '*' takes the last column that fits; lists are cut
    assert sinfo(si, "-o", "%.3P|%5P|%6P|%.10P|%3N|%.10N|%4D|") == (
        "PAR|PARTI|PARTIT| PARTITION|NOD|  NODELIST|NODE|\n"
        "de*|debu*|debug*|    debug*|n[1|    n[1-2]|2   |\n")
    # Slurm 22.05 has no '-' or '#' flag: it says so, prints the token and goes on
    rc, out, err = si.run("sinfo", "-o", "%P|%-3t|%#N|%Q")
    assert (rc, out) == (0, "PARTITION|%-3t|%#N|%Q\ndebug*|%-3t|%#N|%Q\n")
    assert err == ("Invalid node format specification: -\n"
                   "Invalid node format specification: #\n"
                   "Invalid node format specification: Q\n")
    # "%%" vanishes and the next letter is a field, as in Slurm
    assert sinfo(si, "-o", "%%P|%P %%") == "PARTITION|PARTITION \ndebug*|debug* \n"


def test_format_long(si):
    assert sinfo(si, "-O", "Partition,NodeList,StateCompact") == (
        "PARTITION           NODELIST            STATE               \n"
        "debug*              n[1-2]              idle                \n")
    rc, out, err = si.run("sinfo", "-O", "Partition:10,Bogus,Nodes:3|,Gres:.6")
    assert (rc, out) == (0, "PARTITION NOD|  GRES\ndebug*    2  | gpu:2\n")
    assert err == "sinfo: error: Invalid job format specification: Bogus\n"


def test_states_and_sort_with_a_running_job(si):
    jid = si.sbatch("-J", "busy", "--wrap", "sleep 300")
    try:
        job = si.wait_state(jid, "RUNNING")
        busy = job["NodeList"]
        free = "n2" if busy == "n1" else "n1"
        mix = f"debug*       up   infinite      1    mix {busy}"
        idle = f"debug*       up   infinite      1   idle {free}"
        wait_for(lambda: "mix" in sinfo(si), 30, what="a mixed node")
        # Slurm's default "#P,-t": partitions in order, then states high to low
        assert sinfo(si) == f"{DEFAULT_HEAD}\n{mix}\n{idle}\n"
        assert sinfo(si, "-S", "+t") == f"{DEFAULT_HEAD}\n{idle}\n{mix}\n"
        env = dict(si.env, SINFO_SORT="t")
        assert sinfo(si, "-h", env=env) == f"{idle}\n{mix}\n"
        assert sinfo(si, "-h", "-S", "-t", env=env) == f"{mix}\n{idle}\n"
        assert sinfo(si, "-h", "-N", "-S", "-N", "-o", "%N").split() == ["n2", "n1"]
        assert sinfo(si, "-h", "-t", "mix", "-o", "%N %t") == f"{busy} mix\n"
        assert sinfo(si, "-h", "-o", "%C") == "1/3/0/4\n"
        doc = json.loads(sinfo(si, "--json"))
        states = sorted((e["node"]["state"], e["nodes"]["nodes"]) for e in doc["sinfo"])
        assert states == sorted([(["IDLE"], [free]), (["MIXED"], [busy])])
    finally:
        si.ok("scancel", str(jid))
        si.wait_done(jid)
        wait_for(lambda: sinfo(si, "-h", "-o", "%T") == "idle\n", 30, what="idle again")


def test_environment_variables(si):
    env = dict(si.env, SINFO_FORMAT="%P:%D")
    assert sinfo(si, env=env) == "PARTITION:NODES\ndebug*:2\n"
    assert sinfo(si, "-o", "%P", env=env) == "PARTITION\ndebug*\n"
    # -N, -s and -R choose their own format before SINFO_FORMAT
    assert sinfo(si, "-N", "-h", env=env).startswith("n1             1    debug* ")
    assert sinfo(si, "-s", "-h", env=env).endswith("0/2/0/2 n[1-2]\n")
    env = dict(si.env, SINFO_PARTITION="nosuch")
    assert sinfo(si, env=env) == DEFAULT_HEAD + "\n"
    assert sinfo(si, "-h", "-p", "debug", "-o", "%P", env=env) == "debug*\n"
    assert sinfo(si, "-h", "-a", "-o", "%P", env=env) == "debug*\n"
    rc, out, err = si.run("sinfo", env=dict(env, SINFO_ALL="1"))
    assert (rc, out) == (1, "")
    assert err == ("sinfo: error: Conflicting options, SINFO_ALL and SINFO_PARTITION, "
                   "specified. Please choose one or the other.\n")
    rc, out, err = si.run("sinfo", "-a", "-p", "debug")
    assert (rc, out) == (1, "")
    assert err == ("sinfo: error: Conflicting options, -a and -p, specified. Please "
                   "choose one or the other.\n")
    rc, out, err = si.run("sinfo", "-l", "-o", "%P")
    assert (rc, out) == (1, "")
    assert err == ("sinfo: fatal: Options -o(--format) and -l(--long) are mutually "
                   "exclusive. Please remove one and retry.\n")


def test_json(si):
    doc = json.loads(sinfo(si, "--json"))
    assert set(doc) == {"sinfo", "meta", "warnings", "errors"}
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.42"
    assert doc["meta"]["command"] == ["sinfo", "--json"]
    [e] = doc["sinfo"]
    assert e["node"]["state"] == ["IDLE"]
    assert e["nodes"] == {"allocated": 0, "idle": 2, "other": 0, "total": 2,
                          "hostnames": ["localhost", "localhost"],
                          "addresses": ["127.0.0.1", "127.0.0.1"], "nodes": ["n1", "n2"]}
    assert (e["cpus"]["total"], e["cpus"]["idle"], e["cpus"]["minimum"]) == (4, 4, 2)
    assert (e["memory"]["minimum"], e["memory"]["maximum"]) == (4096, 4096)
    assert e["gres"]["total"] == "gpu:2"
    p = e["partition"]
    assert p["name"] == "debug" and p["nodes"]["configured"] == "n[1-2]"
    assert p["nodes"]["total"] == 2 and p["cpus"]["total"] == 4
    assert p["maximums"]["time"] == {"set": False, "infinite": True, "number": 0}
    assert p["partition"]["state"] == ["UP"]
    doc = json.loads(sinfo(si, "--json", "-N"))
    assert [x["nodes"]["nodes"] for x in doc["sinfo"]] == [["n1"], ["n2"]]


def test_bad_states_usage_and_extra_words(si):
    rc, out, err = si.run("sinfo", "-t", "idle,bogus")
    assert (rc, out) == (1, "")
    assert err == ('sinfo: error: Bad state string: "bogus"\n'
                   "sinfo: error: valid states: unknown,down,idle,allocated,?,mixed,"
                   "future,drain,drained,draining,no_respond,reserved,perfctrs,cloud,"
                   "completing,powering_down,powered_down,power_down,powering_up,fail,"
                   "maint,reboot,reboot^,unknown\n")
    assert sinfo(si, "-h", "-t", "IDLE", "-o", "%t") == "idle\n"
    assert sinfo(si, "--usage") == (
        "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
        "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n")
    # Slurm's sinfo ignores words after its options
    assert sinfo(si, "-h", "-o", "%P", "extra") == "debug*\n"
