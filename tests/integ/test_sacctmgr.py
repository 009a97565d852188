"""sacctmgr and sshare for account discovery (COMPAT-SURFACE rows 26-27):
`sacctmgr -n -s list user U format=account%N` (Snakemake) and `sshare -U
--format Account%256 --noheader` (its Slurm plugin). Drover has no
associations yet: a user's accounts are those their jobs were charged to,
listed once each, sorted; nothing (exit 0) when there are none. Layout
as Slurm's print_fields, checked against the peer cluster's output."""

import os
import pwd

import pytest

ME = pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture
def charged(cluster):
    for acct in ("proj2", "proj1", "proj2"):
        cluster.sbatch("-H", "-A", acct, "--wrap", "true")
    cluster.sbatch("-H", "--wrap", "true")  # no account: not listed
    return cluster


@pytest.mark.parametrize("args, out", [
    (["-n", "-s", "list", "user", ME, "format=account%30"],
     f"{'proj1':>30} \n{'proj2':>30} \n"),
    (["-s", "list", "user", ME, "format=account%30"],
     f"{'Account':>30} \n{'-' * 30} \n{'proj1':>30} \n{'proj2':>30} \n"),
    (["-n", "-s", "list", "user", ME, "format=account"], "     proj1 \n     proj2 \n"),
    (["-n", "-s", "show", "user", ME, "format=Account%-8"], "proj1    \nproj2    \n"),
    (["-n", "-s", "list", "user", ME, "format=account%3"], "pr+ \npr+ \n"),
    (["-P", "-n", "-s", "list", "user", ME, "format=account"], "proj1\nproj2\n"),
    (["-p", "-s", "list", "user", ME, "format=account,user"],
     f"Account|User|\nproj1|{ME}|\nproj2|{ME}|\n"),
    (["-n", "list", "user", ME, "withassoc", "format=acc"], "     proj1 \n     proj2 \n"),
    (["-n", "-s", "list", "user", f"name={ME}", "format=account"],
     "     proj1 \n     proj2 \n"),
    (["-n", "list", "user", ME, "format=account"], f"{'':>10} \n"),
    (["-P", "list", "user", ME], f"User|Def Acct|Admin\n{ME}||None\n"),
    (["-P", "-s", "list", "user", ME],
     "User|Def Acct|Admin|Cluster|Account|Partition|Share|Priority|MaxJobs|MaxNodes|"
     "MaxCPUs|MaxSubmit|MaxWall|MaxCPUMins|QOS|Def QOS\n"
     f"{ME}||None|drover|proj1||1||||||||normal|\n"
     f"{ME}||None|drover|proj2||1||||||||normal|\n"),
    (["-n", "-s", "list", "user", "no-such-user-here", "format=account%30"], ""),
])
def test_sacctmgr_list_user(charged, args, out):
    assert charged.run("sacctmgr", *args) == (0, out, "")


def test_sacctmgr_nothing_charged(cluster):
    cluster.sbatch("-H", "--wrap", "true")
    assert cluster.run("sacctmgr", "-n", "-s", "list", "user", ME,
                       "format=account%256") == (0, "", "")


@pytest.mark.parametrize("args, message", [
    (["-s", "list", "user", ME, "format=foo"], "Unknown field 'foo'\n"),
    (["list", "user", ME, "foo=1"],
     " Unknown condition: foo=1\n Use keyword 'set' to modify value\n"),
    (["list", "foo"], "No valid entity in list command\n"
     "Input line must include \"Account\", \"Association\", \"Cluster\", "
     "\"Configuration\",\n\"Event\", \"Federation\", \"Problem\", \"QOS\", "
     "\"Resource\", \"Reservation\",\n\"RunAwayJobs\", \"Stats\", \"Transaction\", "
     "\"TRES\", \"User\", or \"WCKey\"\n"),
    (["frobnicate"], "invalid keyword: frobnicate\n"),
    (["--foo"], "sacctmgr: unrecognized option '--foo'\n"
                "Try \"sacctmgr --help\" for more information\n"),
])
def test_sacctmgr_refused(charged, args, message):
    assert charged.run("sacctmgr", *args) == (1, "", message)


HEAD = ("Account                    User  RawShares  NormShares    RawUsage  "
        "EffectvUsage  FairShare \n"
        "-------------------- ---------- ---------- ----------- ----------- "
        "------------- ---------- \n")


def user_row(acct, indent=""):
    return (f"{indent + acct:<20} {ME:>10} {'1':>10} {'':>11} {'0':>11} "
            f"{'0.000000':>13} {'0.000000':>10} \n")


@pytest.mark.parametrize("args, out", [
    (["-U", "--format", "Account%256", "--noheader"],
     f"{'proj1':>256} \n{'proj2':>256} \n"),
    (["-U", "-o", "Account%-10", "-n"], "proj1      \nproj2      \n"),
    (["-U"], HEAD + user_row("proj1") + user_row("proj2")),
    (["-U", "-u", ME, "-P", "-o", "Account,User"],
     f"Account|User\nproj1|{ME}\nproj2|{ME}\n"),
    (["-U", "-p", "-o", "account,user"], f"Account|User|\nproj1|{ME}|\nproj2|{ME}|\n"),
    (["-n", "-o", "Account"], "proj1                \n proj1               \n"
                              "proj2                \n proj2               \n"),
    (["-U", "-u", "no-such-user-here", "-n", "-o", "account"], ""),
])
def test_sshare(charged, args, out):
    assert charged.run("sshare", *args) == (0, out, "")


def test_sshare_refused(charged):
    assert charged.run("sshare", "-U", "-o", "Foo") == (
        1, "", "sshare: error: Invalid field requested: \"foo\"\n")
    assert charged.run("sshare", "--foo") == (
        1, "", "sshare: unrecognized option '--foo'\n"
               "Try \"sshare --help\" for more information\n")


def test_sshare_nothing_charged(cluster):
    assert cluster.run("sshare", "-U", "--format", "Account%256", "--noheader") == (
        0, "", "")
