"""sacctmgr and sshare for account discovery (COMPAT-SURFACE rows 26-27):
`sacctmgr -n -s list user U format=account%N` (Snakemake) and `sshare -U
--format Account%256 --noheader` (its Slurm plugin), over the real tables:
a user's accounts are its associations, listed once each, sorted; nothing
(exit 0) when it has none. Layout as Slurm's print_fields, checked against
the peer cluster's output. The user running the tests may be root, whose
association to the account root always exists (as in Slurm)."""

import os
import pwd

import pytest

ME = pwd.getpwuid(os.getuid()).pw_name
# the accounts the fixture gives ME, and root's own when ME is root
ACCTS = sorted(["proj1", "proj2"] + (["root"] if ME == "root" else []))
DEF = "root" if ME == "root" else "proj1"  # Slurm's: the first by name


@pytest.fixture
def charged(cluster):
    cluster.ok("sacctmgr", "-i", "add", "account", "proj2,proj1")
    cluster.ok("sacctmgr", "-i", "add", "user", ME, "account=proj2,proj1")
    return cluster


def rows(fmt, accts=ACCTS):
    return "".join(fmt.format(a) for a in accts)


@pytest.mark.parametrize("args, out", [
    (["-n", "-s", "list", "user", ME, "format=account%30"], rows("{:>30} \n")),
    (["-s", "list", "user", ME, "format=account%30"],
     f"{'Account':>30} \n{'-' * 30} \n" + rows("{:>30} \n")),
    (["-n", "-s", "list", "user", ME, "format=account"], rows("{:>10} \n")),
    (["-n", "-s", "show", "user", ME, "format=Account%-8"], rows("{:<8} \n")),
    (["-n", "-s", "list", "user", ME, "format=account%3"], rows("{:.2}+ \n")),
    (["-P", "-n", "-s", "list", "user", ME, "format=account"], rows("{}\n")),
    (["-p", "-s", "list", "user", ME, "format=account,user"],
     "Account|User|\n" + rows("{}|" + ME + "|\n")),
    (["-n", "list", "user", ME, "withassoc", "format=acc"], rows("{:>10} \n")),
    (["-n", "-s", "list", "user", f"name={ME}", "format=account"], rows("{:>10} \n")),
    (["-n", "list", "user", ME, "format=account"], f"{'':>10} \n"),
    (["-P", "list", "user", ME],
     f"User|Def Acct|Admin\n{ME}|{DEF}|{'Administrator' if ME == 'root' else 'None'}\n"),
    (["-P", "-s", "list", "user", ME],
     "User|Def Acct|Admin|Cluster|Account|Partition|Share|Priority|MaxJobs|MaxNodes|"
     "MaxCPUs|MaxSubmit|MaxWall|MaxCPUMins|QOS|Def QOS\n" +
     rows(f"{ME}|{DEF}|{'Administrator' if ME == 'root' else 'None'}|drover|{{}}||1||||||||"
          "normal|\n")),
    (["-n", "-s", "list", "user", "no-such-user-here", "format=account%30"], ""),
])
def test_sacctmgr_list_user(charged, args, out):
    assert charged.run("sacctmgr", *args) == (0, out, "")


def test_sacctmgr_user_without_associations(cluster):
    cluster.ok("sacctmgr", "-i", "add", "account", "proj1")
    cluster.ok("sacctmgr", "-i", "add", "user", "nobodyhere", "account=proj1")
    cluster.ok("sacctmgr", "-i", "delete", "user", "nobodyhere")
    assert cluster.run("sacctmgr", "-n", "-s", "list", "user", "nobodyhere",
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


def user_row(acct, indent="", user=ME):
    user = user if len(user) <= 10 else user[:9] + "+"
    return (f"{indent + acct:<20} {user:>10} {'1':>10} {'':>11} {'0':>11} "
            f"{'0.000000':>13} {'0.000000':>10} \n")


def acct_row(acct, indent="", shares="1"):
    return (f"{indent + acct:<20} {'':>10} {shares:>10} {'':>11} {'0':>11} "
            f"{'0.000000':>13} {'':>10} \n")


# sshare -U lists ME's associations in the tree's order: users of an
# account before its sub-accounts, accounts by name
TREE_USERS = (["root"] if ME == "root" else []) + ["proj1", "proj2"]


@pytest.mark.parametrize("args, out", [
    (["-U", "--format", "Account%256", "--noheader"],
     rows("{:>256} \n", TREE_USERS)),
    (["-U", "-o", "Account%-10", "-n"], rows("{:<10} \n", TREE_USERS)),
    (["-U"], HEAD + "".join(user_row(a) for a in TREE_USERS)),
    (["-U", "-u", ME, "-P", "-o", "Account,User"],
     "Account|User\n" + rows("{}|" + ME + "\n", TREE_USERS)),
    (["-U", "-p", "-o", "account,user"],
     "Account|User|\n" + rows("{}|" + ME + "|\n", TREE_USERS)),
    # the tree: root, its users, its accounts, each account's users
    (["-n", "-o", "Account"],
     "root                 \n" + (" root                \n" if ME == "root" else "") +
     " proj1               \n  proj1              \n"
     " proj2               \n  proj2              \n"),
    (["-U", "-u", "no-such-user-here", "-n", "-o", "account"], ""),
])
def test_sshare(charged, args, out):
    assert charged.run("sshare", *args) == (0, out, "")


def test_sshare_accounts_and_all(charged):
    """-A keeps the accounts named (the tree starts at them), -a every user."""
    other = "zz" + ME  # sorts after ME
    charged.ok("sacctmgr", "-i", "add", "user", other, "account=proj1")
    assert charged.run("sshare", "-A", "proj1", "-a") == (0, HEAD + (
        acct_row("proj1") + user_row("proj1", " ") + user_row("proj1", " ", other)), "")


def test_sshare_refused(charged):
    assert charged.run("sshare", "-U", "-o", "Foo") == (
        1, "", "sshare: error: Invalid field requested: \"foo\"\n")
    assert charged.run("sshare", "--foo") == (
        1, "", "sshare: unrecognized option '--foo'\n"
               "Try \"sshare --help\" for more information\n")


def test_sshare_no_associations(cluster):
    assert cluster.run("sshare", "-U", "-u", "nobodyhere", "--format", "Account%256",
                       "--noheader") == (0, "", "")
