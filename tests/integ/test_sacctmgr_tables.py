"""sacctmgr over ctld's tables: add, modify, delete and list every entity
with Slurm 22.05's bytes (checked against the peer's sacctmgr, with its
cluster name), the question without -i, refusals that change nothing, and
tables that survive a kill -9 of ctld."""

import os
import pwd

import pytest

from conftest import BIN, as_nobody_prefix, run

ME = pwd.getpwuid(os.getuid()).pw_name


def sm(c, *args, input=None):
    return c.run("sacctmgr", *args, input=input)


def tables(c):
    """Everything sacctmgr can list, to show nothing changed."""
    return [c.ok("sacctmgr", "-P", "list", e, *extra) for e, *extra in (
        ("assoc", "format=cluster,account,user,partition,share,grptres,grpjobs,"
         "grpsubmit,maxjobs,maxsubmit,maxtres,maxwall,qos,defaultqos,parentname"),
        ("account",), ("user", "withcoord"), ("qos",), ("cluster",))]


QUESTION = ("Would you like to commit changes? (You have 30 seconds to decide)\n"
            "(N/y): \n")
CHEM = (" Adding Account(s)\n  chem\n Settings\n  Description     = Account Name\n"
        "  Organization    = Parent/Account Name\n Associations\n"
        "  A = chem       C = drover    \n")


def test_add_account_asks_first(cluster):
    c = cluster
    before = tables(c)
    # no, anything else, the end of input: nothing is added
    assert sm(c, "add", "account", "chem", input="n\n") == (
        0, CHEM + QUESTION + " Changes Discarded\n", "")
    assert sm(c, "add", "account", "chem", input="x\n") == (
        0, CHEM + QUESTION + "Y or N please\n(N/y): \n Changes Discarded\n", "")
    assert sm(c, "add", "account", "chem", input="") == (
        0, CHEM + QUESTION + " Changes Discarded\n", "")
    assert tables(c) == before
    # yes: added, once
    assert sm(c, "add", "account", "chem", "parent=root", "MaxJobs=4",
              input="y\n") == (0, CHEM + " Settings\n  MaxJobs       = 4\n"
                               "  Parent        = root\n" + QUESTION, "")
    assert sm(c, "-i", "add", "account", "chem") == (1, " Nothing new added.\n", "")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "account=chem",
                "format=account,parentname,maxjobs") == "chem|root|4\n"


def test_add_and_list_accounts_and_users(cluster):
    c = cluster
    assert sm(c, "-i", "add", "account", "physics", "Description=Phys Dept",
              "Organization=sci") == (
        0, " Adding Account(s)\n  physics\n Settings\n  Description     = phys dept\n"
           "  Organization    = sci\n Associations\n  A = physics    C = drover    \n"
           " Settings\n  Parent        = root\n", "")
    c.ok("sacctmgr", "-i", "add", "account", "chem", "parent=physics", "MaxJobs=4")
    assert sm(c, "-i", "add", "user", "alice", "Account=physics") == (
        0, " Adding User(s)\n  alice\n Associations =\n"
           "  U = alice     A = physics    C = drover    \n Non Default Settings\n", "")
    assert sm(c, "-i", "add", "user", "bob", "DefaultAccount=chem",
              "AdminLevel=Operator") == (
        0, " Adding User(s)\n  bob\n Settings =\n  Default Account = chem\n"
           "  Admin Level     = Operator\n Associations =\n"
           "  U = bob       A = chem       C = drover    \n", "")
    assert sm(c, "-i", "add", "user", "carol", "Account=physics,chem", "Partition=debug",
              "MaxSubmitJobs=3") == (
        0, " Adding User(s)\n  carol\n Associations =\n"
           "  U = carol     A = physics    C = drover     P = debug     \n"
           "  U = carol     A = chem       C = drover     P = debug     \n"
           " Non Default Settings\n  MaxSubmitJobs = 3\n", "")
    assert sm(c, "list", "account") == (
        0, "   Account                Descr                  Org \n"
           "---------- -------------------- -------------------- \n"
           "      chem                 chem              physics \n"
           "   physics            phys dept                  sci \n"
           "      root default root account                 root \n", "")
    # a new user's default account is the first of its accounts by name
    assert sm(c, "list", "user") == (
        0, "      User   Def Acct     Admin \n---------- ---------- --------- \n"
           "     alice    physics      None \n       bob       chem  Operator \n"
           "     carol       chem      None \n      root       root Administ+ \n", "")
    # the tree: users first, then sub-accounts; Max* inherited, shown
    assert sm(c, "list", "assoc", "tree", "format=cluster,account,user,partition,share,"
              "maxjobs,maxsubmit") == (
        0, "   Cluster Account                    User  Partition     Share MaxJobs "
           "MaxSubmit \n"
           "---------- -------------------- ---------- ---------- --------- ------- "
           "--------- \n"
           "    drover root                                               1         "
           "          \n"
           "    drover  root                      root                    1         "
           "          \n"
           "    drover  physics                                           1         "
           "          \n"
           "    drover   physics                 alice                    1         "
           "          \n"
           "    drover   physics                 carol      debug         1         "
           "        3 \n"
           "    drover   chem                                             1       4 "
           "          \n"
           "    drover    chem                     bob                    1       4 "
           "          \n"
           "    drover    chem                   carol      debug         1       4 "
           "        3 \n", "")
    assert sm(c, "-n", "-p", "list", "user", "carol", "withassoc",
              "format=user,account,partition,qos") == (
        0, "carol|physics|debug|normal|\ncarol|chem|debug|normal|\n", "")  # db order


@pytest.fixture
def tree(cluster):
    for args in (("account", "physics"), ("account", "chem", "parent=physics",
                 "MaxJobs=4"), ("user", "alice", "account=physics"),
                 ("user", "bob", "defaultaccount=chem"),
                 ("user", "carol", "account=physics,chem", "partition=debug")):
        cluster.ok("sacctmgr", "-i", "add", *args)
    return cluster


def test_modify(tree):
    c = tree
    # the lines: the account's association, then the users below that now
    # inherit a Max* limit, newest first
    assert sm(c, "-i", "modify", "account", "physics", "set", "GrpTRES=cpu=4,mem=10G",
              "MaxTRES=mem=1536,gres/gpu=1", "MaxWall=1-02:03", "Fairshare=10") == (
        0, " Modified account associations...\n"
           "  C = drover     A = physics of root\n"
           "  C = drover     A = physics              U = carol     P = debug\n"
           "  C = drover     A = physics              U = alice    \n"
           "  C = drover     A = chem                 U = carol     P = debug\n"
           "  C = drover     A = chem                 U = bob      \n", "")
    assert c.ok("sacctmgr", "-P", "list", "assoc",
                "format=account,user,share,grptres,maxtres,maxwall,maxjobs") == (
        "Account|User|Share|GrpTRES|MaxTRES|MaxWall|MaxJobs\nroot||1||||\n"
        "root|root|1||||\nphysics||10|cpu=4,mem=10G|gres/gpu=1,mem=1.50G|1-02:03:00|\n"
        "physics|alice|1||gres/gpu=1,mem=1.50G|1-02:03:00|\n"
        "physics|carol|1||gres/gpu=1,mem=1.50G|1-02:03:00|\n"
        "chem||1||gres/gpu=1,mem=1.50G|1-02:03:00|4\n"
        "chem|bob|1||gres/gpu=1,mem=1.50G|1-02:03:00|4\n"
        "chem|carol|1||gres/gpu=1,mem=1.50G|1-02:03:00|4\n")
    # WOPLimits: only what each sets itself
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "wopl", "account=chem",
                "format=user,maxjobs,maxwall") == "|4|\nbob||\ncarol||\n"
    # -1 clears; a TRES count of -1 clears that one
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set", "GrpTRES=cpu=-1",
         "MaxWall=-1")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "account=physics", "user=",
                "format=grptres,maxwall") == "mem=10G|\n"
    assert sm(c, "-i", "modify", "user", "alice", "set", "DefaultAccount=chem") == (
        1, " Can't modify because these users aren't associated with new default "
           "account 'chem'...\n  U = alice C = drover\n", "")
    assert sm(c, "-i", "modify", "user", "where", "name=bob", "set", "AdminLevel=None",
              "MaxJobs=7") == (
        0, " Modified users...\n  bob\n Modified user associations...\n"
           "  C = drover     A = chem                 U = bob      \n", "")
    assert sm(c, "-i", "modify", "account", "nope", "set", "MaxJobs=2") == (
        1, " Nothing modified\n", "")
    assert sm(c, "-i", "modify", "account", "chem", "set", "Description=Chemistry") == (
        0, " Modified accounts...\n  chem\n", "")
    assert sm(c, "-i", "modify", "account", "chem") == (
        1, "", " You didn't give me anything to set\n")
    # a move: named by the parent it had
    assert sm(c, "-i", "modify", "account", "where", "name=chem", "set",
              "parent=root") == (
        0, " Modified account associations...\n  C = drover     A = chem of physics\n",
        "")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "account=chem", "user=",
                "format=parentname") == "root\n"
    # without -i: the lines, then the question
    assert sm(c, "modify", "user", "carol", "set", "MaxJobs=1", input="n\n") == (
        0, " Modified user associations...\n"
           "  C = drover     A = chem                 U = carol     P = debug\n"
           "  C = drover     A = physics              U = carol     P = debug\n" +
           QUESTION + " Changes Discarded\n", "")
    # nothing changed: chem (now under root, listed first) still gives 4
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "user=carol",
                "format=account,maxjobs") == "chem|4\nphysics|\n"


def test_delete(tree):
    c = tree
    assert sm(c, "-i", "delete", "user", "carol", "account=chem") == (
        0, " Deleting user associations...\n"
           "  C = drover     A = chem       U = carol     P = debug\n", "")
    assert sm(c, "-i", "delete", "user", "nobodyxyz") == (1, " Nothing deleted\n", "")
    assert sm(c, "-i", "delete", "user") == (
        1, "", " No conditions given to remove, not executing.\n")
    assert sm(c, "-i", "delete", "account", "chem") == (
        0, " Deleting accounts...\n  chem\n", "")
    # bob's only association went with chem: bob stays, with no default
    assert c.ok("sacctmgr", "-n", "-P", "list", "user", "bob") == "bob||None\n"
    assert sm(c, "-i", "delete", "user", "bob") == (0, " Deleting users...\n  bob\n", "")
    # a user's last association: the user goes too
    assert sm(c, "-i", "delete", "user", "alice", "account=physics") == (
        0, " Deleting user associations...\n"
           "  C = drover     A = physics    U = alice    \n"
           " Deleting users (No Associations)...\n  alice\n", "")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "format=account,user") == (
        "root|\nroot|root\nphysics|\nphysics|carol\n")
    # root is there to stay
    assert sm(c, "-i", "delete", "account", "root")[0] == 1


def test_default_account_refused(tree):
    c = tree
    c.ok("sacctmgr", "-i", "add", "user", "dave", "account=physics")
    c.ok("sacctmgr", "-i", "add", "user", "dave", "account=chem")
    before = tables(c)
    assert sm(c, "-i", "delete", "account", "physics") == (
        1, "", " Error with request: You can not remove the default account of a user\n"
               "  C = drover          A = physics    U = dave     \n"
               " Please either remove the accounts listed above from list and "
               "resubmit,\n or change these users' default accounts to remove the "
               "account(s).\n Changes Discarded\n")
    assert tables(c) == before


def test_qos(cluster):
    c = cluster
    assert sm(c, "-i", "add", "qos", "high", "Priority=100", "MaxWall=2:00:00",
              "MaxTRESPerUser=cpu=8", "MaxJobsPerUser=4", "MaxSubmitJobsPerUser=10",
              "GrpTRES=cpu=64", "GrpJobs=20", "MaxTRESPerJob=gres/gpu=2",
              "UsageFactor=2.5", "Flags=DenyOnLimit", "Preempt=normal",
              "PreemptMode=requeue") == (
        0, " Adding QOS(s)\n  high\n Settings\n  Description    = high\n"
           "  Flags                    = DenyOnLimit\n"
           "  GrpJobs                  = 20\n"
           "  GrpTRES                  = cpu=64\n"
           "  MaxJobsPerUser = 4\n"
           "  MaxSubmitJobsPerUser     = 10\n"
           "  MaxTRESPerJob            = gres/gpu=2\n"
           "  MaxTRESPerUser           = cpu=8\n"
           "  MaxWall                  = 02:00:00\n"
           "  Preempt                  = normal\n"
           "  PreemptMode              = REQUEUE\n"
           "  Priority                 = 100\n"
           "  UsageFactor              = 2.5000\n", "")
    assert sm(c, "-i", "add", "qos", "high") == (1, " Nothing new added.\n", "")
    assert c.ok("sacctmgr", "-P", "list", "qos") == (
        "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|"
        "UsageThres|UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|"
        "GrpWall|MaxTRES|MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|"
        "MaxSubmitPU|MaxTRESPA|MaxJobsPA|MaxSubmitPA|MinTRES\n"
        "normal|0|00:00:00|||cluster|||1.000000|||||||||||||||||\n"
        "high|100|00:00:00|normal||requeue|DenyOnLimit||2.500000|cpu=64|||20|||"
        "gres/gpu=2|||02:00:00|cpu=8|4|10||||\n")
    assert sm(c, "-i", "modify", "qos", "high", "set", "Priority=50",
              "Flags-=DenyOnLimit") == (0, " Modified qos...\n  high\n", "")
    assert c.ok("sacctmgr", "-n", "-P", "list", "qos", "high",
                "format=name,priority,flags") == "high|50|\n"
    assert sm(c, "-i", "modify", "qos", "nope", "set", "Priority=5") == (
        1, " Nothing modified\n", "")
    # an association may use the QOS it lists (or inherits)
    c.ok("sacctmgr", "-i", "add", "account", "physics", "QOS=high,normal",
         "DefaultQOS=high")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "account=physics",
                "format=qos,defaultqos") == "high,normal|high\n"
    assert sm(c, "-i", "delete", "qos", "high") == (
        0, " Deleting QOS(s)...\n  high\n", "")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "account=physics",
                "format=qos,defaultqos") == "normal|\n"
    assert sm(c, "-i", "delete", "qos", "nope") == (1, " Nothing deleted\n", "")
    assert sm(c, "-i", "delete", "qos", "normal")[0] == 1  # always exists


def test_coordinators_and_clusters(tree):
    c = tree
    assert sm(c, "-i", "add", "coordinator", "user=alice", "account=physics") == (
        0, " Adding Coordinator User(s)\n  alice\n To Account(s) and all sub-accounts\n"
           "  physics\n", "")
    # a coordinator has the sub-accounts too
    assert c.ok("sacctmgr", "-n", "-P", "list", "user", "alice", "withcoord",
                "format=user,coord") == "alice|chem,physics\n"
    assert c.ok("sacctmgr", "-n", "-P", "list", "account", "withcoord",
                "format=account,coord") == "chem|alice\nphysics|alice\nroot|\n"
    assert sm(c, "-i", "delete", "coordinator", "user=alice", "account=physics") == (
        0, " Removing Coordinators with user name\n  alice\n From Account(s)\n"
           "  physics\n Removed Coordinators (sub accounts not listed)...\n"
           "  U = alice     A = physics   \n", "")
    assert sm(c, "-i", "add", "coordinator", "user=nobody1", "account=chem") == (
        1, "", " You specified a non-existent user 'nobody1'.\n")
    assert sm(c, "-i", "add", "cluster", "other") == (
        0, " Adding Cluster(s)\n  Name           = other\n", "")
    assert sm(c, "-i", "add", "cluster", "other") == (
        1, " This cluster other already exists.  Not adding.\n", "")
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "cluster=other",
                "format=cluster,account,user") == "other|root|\nother|root|root\n"
    assert c.ok("sacctmgr", "-n", "list", "cluster", "format=cluster,share,qos") == (
        "    drover         1               normal \n"
        "     other         1               normal \n")
    assert sm(c, "-i", "delete", "cluster", "other") == (
        0, " Deleting clusters...\n  other\n", "")
    assert sm(c, "-i", "delete", "cluster", "drover")[0] == 1  # ClusterName stays


@pytest.mark.parametrize("args, out, err", [
    (["add", "account", "bad", "GrpTRES=cpu=x"], "",
     "sacctmgr: error: Invalid unit type 'x'. Possible options are 'KMGTP'\n"
     " Unknown option: GrpTRES=cpu=x\n Use keyword 'where' to modify condition\n"),
    (["add", "account", "bad", "MaxWall=abc"], "",
     " Bad MaxWall time format: MaxWall=abc\n Unknown option: MaxWall=abc\n"
     " Use keyword 'where' to modify condition\n"),
    (["add", "account", "bad", "GrpTRES=foo=3"], "",
     "sacctmgr: error: slurmdb_format_tres_str: no TRES known by type foo\n"
     " Unknown option: GrpTRES=foo=3\n Use keyword 'where' to modify condition\n"),
    (["add", "account", "bad", "MaxJobs=x"], "",
     "sacctmgr: error: Invalid value for MaxJobs (x)\n Unknown option: MaxJobs=x\n"
     " Use keyword 'where' to modify condition\n"),
    (["add", "account", "bad", "Parent=nope"], "",
     " Parent account 'nope' doesn't exist on cluster drover\n"
     "        Contact your admin to add this account.\n No associations created.\n"),
    (["add", "account", "bad", "QOS=nope"], "",
     "sacctmgr: error: You gave a bad qos 'nope'. Valid QOS's are normal\n"
     " Unknown option: QOS=nope\n Use keyword 'where' to modify condition\n"),
    (["add", "account", "bad", "Foo=1"], "",
     " Unknown option: Foo=1\n Use keyword 'where' to modify condition\n"),
    (["add", "account"], "", " Need name of account to add.\n"),
    (["add", "user", "eve", "Account=nope"], "",
     " This account 'nope' doesn't exist.\n        Contact your admin to add this "
     "account.\n No associations or wckeys created.\n"),
    (["add", "user", "eve"], "", " Need name of account to add user to.\n"),
    (["add", "qos", "bad", "MaxWall=x"], "", " Bad MaxWall time format: MaxWall=x\n"),
    (["add", "qos", "bad", "Foo=1"],
     " Unknown option: Foo=1\n Use keyword 'where' to modify condition\n", ""),
    (["modify", "account", "physics", "set", "GrpTRES=cpu=x"], "",
     "sacctmgr: error: Invalid unit type 'x'. Possible options are 'KMGTP'\n"
     " Unknown option: GrpTRES=cpu=x\n Use keyword 'where' to modify condition\n"),
    (["modify", "account", "physics", "set", "MaxWall=abc"], "",
     " Bad MaxWall time format: MaxWall=abc\n Unknown option: MaxWall=abc\n"
     " Use keyword 'where' to modify condition\n"),
    (["modify", "account", "where", "name=physics", "set", "parent=nope"], "",
     " Parent Account nope doesn't exist.\n"),
    (["modify", "qos", "normal", "set", "MaxJobsPerUser=x"], "",
     "sacctmgr: error: Invalid value for MaxJobsPU (x)\n"
     " You didn't give me anything to set\n"),
    (["modify", "user", "alice", "set", "foo=1"], "",
     " Unknown option: foo=1\n Use keyword 'where' to modify condition\n"),
    (["add", "coordinator", "user=alice", "account=nope"], "",
     " You specified a non-existent account 'nope'.\n"),
    (["add", "foo"], "", "No valid entity in add command\nInput line must include "
     "\"Account\", \"Cluster\", \"Coordinator\", \"Federation\", \"QOS\", "
     "\"Resource\", or \"User\"\n"),
])
def test_bad_input_changes_nothing(cluster, args, out, err):
    c = cluster
    c.ok("sacctmgr", "-i", "add", "account", "physics")
    c.ok("sacctmgr", "-i", "add", "user", "alice", "account=physics")
    before = tables(c)
    assert sm(c, "-i", *args) == (1, out, err)
    assert tables(c) == before


def test_tables_survive_kill9(cluster):
    c = cluster
    c.ok("sacctmgr", "-i", "add", "qos", "high", "MaxWall=10", "Flags=DenyOnLimit")
    c.ok("sacctmgr", "-i", "add", "account", "physics", "GrpTRES=cpu=4", "QOS=high,normal")
    c.ok("sacctmgr", "-i", "add", "user", "alice", "account=physics", "MaxJobs=3")
    c.ok("sacctmgr", "-i", "add", "coordinator", "user=alice", "account=physics")
    # acknowledged means durable: the last change is kept however soon ctld dies
    c.ok("sacctmgr", "-i", "modify", "account", "physics", "set", "Fairshare=7")
    before = tables(c)
    ids = c.ok("sacctmgr", "-n", "-P", "list", "assoc", "format=id")
    c.kill9("ctld")
    c.up()
    assert tables(c) == before
    assert c.ok("sacctmgr", "-n", "-P", "list", "assoc", "format=id") == ids
    # ids go on from the highest ever issued, even after a delete
    c.ok("sacctmgr", "-i", "delete", "user", "alice")
    c.kill9("ctld")
    c.up()
    c.ok("sacctmgr", "-i", "add", "user", "bob", "account=physics")
    new = c.ok("sacctmgr", "-n", "-P", "list", "assoc", "user=bob", "format=id")
    assert int(new) > max(int(x) for x in ids.split())


def test_sshare_tree(cluster):
    c = cluster
    c.ok("sacctmgr", "-i", "add", "account", "physics", "Fairshare=10")
    c.ok("sacctmgr", "-i", "add", "account", "chem", "parent=physics",
         "Fairshare=parent")
    c.ok("sacctmgr", "-i", "add", "user", "alice", "account=chem")
    c.ok("sacctmgr", "-i", "add", "user", "bob", "account=physics")
    me = "|" + ME + "|1||0|0.000000|0.000000\n" if ME == "root" else ""
    assert c.ok("sshare", "-a", "-P") == (
        "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
        "root||||0|0.000000|\n" + (" root" + me if me else "") +
        " physics||10||0|0.000000|\n"
        "  physics|bob|1||0|0.000000|0.000000\n"
        "  chem||parent||0|0.000000|\n"
        "   chem|alice|1||0|0.000000|0.000000\n")
    assert c.ok("sshare", "-A", "chem", "-a", "-l", "-P", "-o",
                "account,user,id,levelfs,tresrunmins") == (
        "Account|User|ID|LevelFS|TRESRunMins\n"
        "chem||4||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0,"
        "gres/gpu=0\n"
        " chem|alice|5|0.000000|cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,"
        "pages=0,gres/gpu=0\n")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become nobody")
def test_changes_need_an_administrator(cluster):
    """Until the multi-user work, root and the cluster's user only."""
    c = cluster
    if run(as_nobody_prefix() + ["test", "-x", BIN / "sacctmgr"])[0] != 0:
        pytest.skip("nobody cannot run the programs where they were built")
    before = tables(c)
    as_nobody = as_nobody_prefix() + [BIN / "sacctmgr"]
    assert run(as_nobody + ["-i", "add", "account", "x"], env=c.env) == (
        1, "", " Problem adding accounts: Access/permission denied\n")
    assert run(as_nobody + ["-i", "modify", "qos", "normal", "set", "Priority=5"],
               env=c.env) == (1, "", " Error with request: Access/permission denied\n")
    assert tables(c) == before
    # reading is for everyone
    rc, out, err = run(as_nobody + ["-n", "-P", "list", "account"], env=c.env)
    assert (rc, out) == (0, "root|default root account|root\n")
