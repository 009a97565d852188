"""Partitions and licenses on a real cluster: scontrol create, update and
delete PartitionName= with Slurm 22.05's output byte for byte, surviving a
kill -9 of ctld; DRAIN and INACTIVE partitions refusing submits with Slurm's
message; AllowAccounts/AllowQos and MaxNodes refusals under
EnforcePartLimits; -p a,b with an unknown name refused, and kept as given
while pending; -L checked against Licenses=; scontrol show licenses; node
Weight=; and scontrol's refusals of bad partition changes, which change
nothing."""

import re

import pytest

from conftest import as_nobody_prefix, wait_for


def node_totals(c, names):
    """(CPUs, memory as Slurm prints it) of the nodes named, from the config."""
    conf = c.conf.read_text()
    cpus = mem = 0
    for n in names:
        line = re.search(rf"^NodeName={n} .*$", conf, re.M).group(0)
        cpus += int(re.search(r"CPUs=(\d+)", line).group(1))
        mem += int(re.search(r"RealMemory=(\d+)", line).group(1))
    return cpus, f"{mem // 1024}G" if mem % 1024 == 0 else f"{mem}M"


def def_mem(c):
    m = re.search(r"^DefMemPerCPU=(\d+)", c.conf.read_text(), re.M)
    return f"DefMemPerCPU={m.group(1)}" if m else "DefMemPerNode=UNLIMITED"


def part_block(c, name, nodes, node_names, *, access="AllowGroups=ALL AllowAccounts=ALL "
               "AllowQos=ALL", default="NO", qos="N/A", maxnodes="UNLIMITED",
               maxtime="UNLIMITED", minnodes=0, maxcpus="UNLIMITED", factor=1,
               tier=1, oversub="NO", state="UP", jobdefaults="(null)",
               maxmem="UNLIMITED"):
    """`scontrol show partition NAME` as Slurm 22.05 prints it."""
    cpus, mem = node_totals(c, node_names)
    return (f"PartitionName={name}\n"
            f"   {access}\n"
            f"   AllocNodes=ALL Default={default} QoS={qos}\n"
            "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 "
            "Hidden=NO\n"
            f"   MaxNodes={maxnodes} MaxTime={maxtime} MinNodes={minnodes} LLN=NO "
            f"MaxCPUsPerNode={maxcpus}\n"
            f"   Nodes={nodes}\n"
            f"   PriorityJobFactor={factor} PriorityTier={tier} RootOnly=NO "
            f"ReqResv=NO OverSubscribe={oversub}\n"
            "   OverTimeLimit=NONE PreemptMode=OFF\n"
            f"   State={state} TotalCPUs={cpus} TotalNodes={len(node_names)} "
            "SelectTypeParameters=NONE\n"
            f"   JobDefaults={jobdefaults}\n"
            f"   {def_mem(c)} MaxMemPerNode={maxmem}\n"
            f"   TRES=cpu={cpus},mem={mem},node={len(node_names)},billing={cpus}\n\n")


def refused(c, args, err, input=None):
    """sbatch args is refused with exactly err on stderr, and no job is made."""
    before = c.ok("squeue", "-h", "-t", "all", "-o", "%i")
    assert c.run("sbatch", *args, input=input) == (1, "", err)
    assert c.ok("squeue", "-h", "-t", "all", "-o", "%i") == before


def restart_ctld(c):
    c.kill9("ctld")
    c.up()


def test_create_update_delete_partition_survive_kill9(make_cluster):
    c = make_cluster(nodes=2)
    c.ok("scontrol", "create", "PartitionName=gpu", "Nodes=n2", "MaxNodes=1",
         "MinNodes=1", "PriorityTier=5", "OverSub=YES:2", "AllowQos=normal,High",
         "DenyAccounts=bad", "QOS=gpuqos", "State=DRAIN",
         "JobDefaults=DefCpuPerGPU=2,DefMemPerGPU=512", "MaxMemPerNode=900")
    want = part_block(c, "gpu", "n2", ["n2"],
                      access="AllowGroups=ALL DenyAccounts=bad AllowQos=normal,high",
                      qos="gpuqos", maxnodes=1, minnodes=1, tier=5, oversub="YES:2",
                      state="DRAIN", jobdefaults="DefCpuPerGPU=2,DefMemPerGPU=512",
                      maxmem=900)
    assert c.run("scontrol", "show", "partition", "gpu") == (0, want, "")
    c.ok("scontrol", "update", "PartitionName=gpu", "PriorityJobFactor=3",
         "MaxTime=1:00:00", "State=UP", "Default=YES", "Nodes=n[1-2]")
    want = part_block(c, "gpu", "n[1-2]", ["n1", "n2"],
                      access="AllowGroups=ALL DenyAccounts=bad AllowQos=normal,high",
                      default="YES", qos="gpuqos", maxnodes=1, maxtime="01:00:00",
                      minnodes=1, factor=3, tier=5, oversub="YES:2",
                      jobdefaults="DefCpuPerGPU=2,DefMemPerGPU=512", maxmem=900)
    assert c.run("scontrol", "show", "partition", "gpu") == (0, want, "")
    # the default moved: debug is no longer it, in both commands
    assert c.ok("sinfo", "-h", "-o", "%P %p %I %h %s") == (
        "debug 1 1 NO 1-infinite\ngpu* 5 3 YES:2 1\n")
    assert "Default=NO" in c.ok("scontrol", "show", "partition", "debug")
    assert "Partitions=debug,gpu " in c.ok("scontrol", "show", "node", "n2")

    restart_ctld(c)  # what was acknowledged is durable and wins over the config
    assert c.run("scontrol", "show", "partition", "gpu") == (0, want, "")
    assert "Default=NO" in c.ok("scontrol", "show", "partition", "debug")

    # a job without -p goes to the new default; while it waits the partition
    # is in use and cannot be deleted
    # (--mem: a whole node's memory is over its MaxMemPerNode, refused as
    # in Slurm)
    jid = c.sbatch("-H", "--mem=100", "--wrap", "true")
    assert c.show_job(jid)["Partition"] == "gpu"
    assert c.run("scontrol", "delete", "PartitionName=gpu") == (
        1, "", "delete_partition PartitionName=gpu: Partition is in use\n")
    c.ok("scancel", str(jid))
    c.wait_done(jid)
    assert c.run("scontrol", "delete", "partition", "gpu") == (0, "", "")
    assert c.run("scontrol", "show", "partition", "gpu") == (
        1, "Partition gpu not found\n", "")
    restart_ctld(c)
    assert c.ok("sinfo", "-h", "-o", "%P") == "debug\n"  # no default any more
    assert c.run("scontrol", "delete", "PartitionName=gpu") == (
        1, "", "delete_partition PartitionName=gpu: Invalid partition name "
               "specified\n")


def test_partition_changes_refused_change_nothing(make_cluster):
    c = make_cluster(nodes=1)
    before = c.ok("scontrol", "show", "partition")
    cases = [
        (["update", "PartitionName=debug", "MaxNodes=lots"],
         "scontrol: error: Invalid input: MaxNodes=lots\n"
         "scontrol: error: MaxNodes: 'lots' is not a number\n"),
        (["update", "PartitionName=debug", "State=SLEEPY"],
         "scontrol: error: Invalid input: State=SLEEPY\n"
         "scontrol: error: State: 'SLEEPY' is not a valid value\n"),
        (["update", "PartitionName=debug", "Bogus=1"],
         "scontrol: error: Update of this parameter is not supported: Bogus=1\n\n"
         "scontrol: error: Request aborted\n"),
        (["update", "PartitionName=debug"], "scontrol: error: No changes specified\n"),
        (["update", "PartitionName=debug", "MaxNodes"],
         "scontrol: error: Invalid input: MaxNodes  Request aborted\n"),
        (["update", "PartitionName=nope", "MaxNodes=2"],
         "slurm_update error: Invalid partition name specified\n"),
        (["update", "PartitionName=debug", "Nodes=n9"],
         "slurm_update error: Invalid node name specified\n"),
        (["create", "PartitionName=debug"],
         "Error creating the partition: Invalid partition name specified\n"),
        (["create", "PartitionName=DEFAULT"],
         'scontrol: error: PartitionName cannot be "DEFAULT".\n'),
        (["create", "Nodes=n1"], "scontrol: error: Invalid creation entity: Nodes=n1\n"),
        (["delete", "PartitionName"],
         "scontrol: error: Proper format is 'delete <ENTITY>=<ID>' or 'delete "
         "<ENTITY> <ID>'\n"),
    ]
    for args, err in cases:
        assert c.run("scontrol", *args) == (1, "", err), args
    # only an administrator (root, the cluster's user, AdminLevel=Administrator)
    # may change partitions: Slurm's ESLURM_USER_ID_MISSING otherwise
    nobody = as_nobody_prefix() + [c.bin / "scontrol"]
    assert c.run(*nobody, "update", "PartitionName=debug", "MaxNodes=1") == (
        1, "", "slurm_update error: Invalid user id\n")
    assert c.run(*nobody, "create", "PartitionName=x") == (
        1, "", "Error creating the partition: Invalid user id\n")
    assert c.run(*nobody, "delete", "PartitionName=debug") == (
        1, "", "delete_partition PartitionName=debug: Invalid user id\n")
    assert c.ok("scontrol", "show", "partition") == before


def test_drain_and_inactive_partitions_refuse_new_jobs(make_cluster):
    c = make_cluster(nodes=1)
    c.ok("scontrol", "create", "PartitionName=p", "Nodes=n1")
    held = c.sbatch("-p", "p", "-H", "--wrap", "true")
    not_avail = ("sbatch: error: Batch job submission failed: Required partition "
                 "not available (inactive or drain)\n")
    for state in ("DRAIN", "INACTIVE"):
        c.ok("scontrol", "update", "PartitionName=p", f"State={state}")
        refused(c, ["-p", "p", "--wrap", "true"], not_avail)
        assert c.ok("sinfo", "-h", "-p", "p", "-o", "%a") == (
            "drain\n" if state == "DRAIN" else "inact\n")
    # among candidates, an unavailable one leaves the list, as Slurm rebuilds it
    jid = c.sbatch("-H", "-p", "p,debug", "--wrap", "true")
    assert c.show_job(jid)["Partition"] == "debug"
    c.ok("scancel", str(jid))
    # DRAIN: the jobs it has may still start
    c.ok("scontrol", "update", "PartitionName=p", "State=DRAIN")
    c.ok("scontrol", "release", str(held))
    assert c.wait_done(held)["JobState"] == "COMPLETED"
    # DOWN takes jobs and starts none until it is UP again
    c.ok("scontrol", "update", "PartitionName=p", "State=DOWN")
    down = c.sbatch("-p", "p", "--wrap", "true")
    assert c.state(down) == "PENDING"  # ctld schedules in the submit's turn
    c.ok("scontrol", "update", "PartitionName=p", "State=UP")
    assert c.wait_done(down)["JobState"] == "COMPLETED"


def test_enforced_accounts_qos_and_node_counts(make_cluster):
    c = make_cluster(nodes=2, sets={
        "EnforcePartLimits": "ALL",
        "PartitionName": "debug Nodes=ALL Default=YES AllowAccounts=phys "
                         "DenyQos=low MaxNodes=1"})
    failed = "sbatch: error: Batch job submission failed: "
    account = failed + "Invalid account or account/partition combination specified\n"
    refused(c, ["-A", "chem", "--wrap", "true"], account)
    refused(c, ["--wrap", "true"], account)  # no account: not one AllowAccounts has
    refused(c, ["-A", "phys", "--qos", "low", "--wrap", "true"],
            failed + "Invalid qos specification\n")
    refused(c, ["-A", "phys", "-N", "2", "--wrap", "true"],
            failed + "Node count specification invalid\n")
    jid = c.sbatch("-A", "PHYS", "--qos", "normal", "--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    # ANY: one of the candidates allowing the job is enough
    c.ok("scontrol", "create", "PartitionName=open", "Nodes=n2")
    refused(c, ["-A", "chem", "-p", "debug,open", "--wrap", "true"], account)


def test_enforce_any_and_no(make_cluster):
    c = make_cluster(nodes=1, sets={
        "EnforcePartLimits": "ANY",
        "PartitionName": "debug Nodes=ALL Default=YES AllowAccounts=phys"})
    c.ok("scontrol", "create", "PartitionName=open", "Nodes=n1")
    jid = c.sbatch("-H", "-A", "chem", "-p", "debug,open", "--wrap", "true")
    assert c.show_job(jid)["Partition"] == "debug,open"
    c.ok("scancel", str(jid))
    # without EnforcePartLimits the job is taken (it waits for the scheduler)
    c.conf.write_text(c.conf.read_text().replace("EnforcePartLimits=ANY\n", ""))
    restart_ctld(c)
    jid = c.sbatch("-H", "-A", "chem", "--wrap", "true")
    assert c.state(jid) == "PENDING"


def test_candidate_partitions(make_cluster):
    c = make_cluster(nodes=2)
    c.ok("scontrol", "create", "PartitionName=p2", "Nodes=n2")
    refused(c, ["-p", "debug,nosuch", "--wrap", "true"],
            "sbatch: error: invalid partition specified: nosuch\n"
            "sbatch: error: Batch job submission failed: Invalid partition name "
            "specified\n")
    refused(c, ["-p", "nosuch", "--wrap", "true"],
            "sbatch: error: invalid partition specified: nosuch\n"
            "sbatch: error: Batch job submission failed: Invalid partition name "
            "specified\n")
    jid = c.sbatch("-H", "-p", "p2,debug", "--wrap", "true")
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%P") == "p2,debug\n"
    assert c.run("scontrol", "delete", "PartitionName=debug") == (
        1, "", "delete_partition PartitionName=debug: Partition is in use\n")
    restart_ctld(c)
    assert c.show_job(jid)["Partition"] == "p2,debug"
    c.ok("scontrol", "update", f"JobId={jid}", "Partition=p2")
    assert c.show_job(jid)["Partition"] == "p2"
    c.ok("scontrol", "delete", "PartitionName=debug")  # no longer named


def test_licenses(make_cluster):
    c = make_cluster(nodes=1, sets={"Licenses": "matlab:2,fluent"})
    invalid = "sbatch: error: Batch job submission failed: Invalid license specification\n"
    for spec in ("nope", "matlab:3", "matlab:x", "fluent,nope:1"):
        refused(c, ["-L", spec, "--wrap", "true"], invalid)
    c.write("job.sh", "#!/bin/sh\n#SBATCH -L matlab:2\n"
                      "while [ ! -e go ]; do sleep 0.1; done\n")
    jid = c.sbatch("job.sh")
    c.wait_state(jid, "RUNNING")
    assert c.show_job(jid)["Licenses"] == "matlab:2"
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%W") == "matlab:2\n"
    assert c.run("scontrol", "show", "licenses") == (0, (
        "LicenseName=fluent\n"
        "    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n"
        "LicenseName=matlab\n"
        "    Total=2 Used=2 Free=0 Reserved=0 Remote=no\n"), "")
    assert c.run("scontrol", "-o", "show", "license", "matlab") == (
        0, "LicenseName=matlab Total=2 Used=2 Free=0 Reserved=0 Remote=no\n", "")
    assert c.run("scontrol", "show", "license", "nope") == (0, "", "")
    restart_ctld(c)  # the job's licenses are in its stored record
    assert c.show_job(jid)["Licenses"] == "matlab:2"
    (c.work / "go").touch()
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    assert "Used=0 Free=2" in c.ok("scontrol", "show", "licenses", "matlab")
    other = make_cluster(nodes=1)
    assert other.run("scontrol", "show", "licenses") == (
        0, "No licenses configured in Slurm.\n", "")
    refused(other, ["-L", "matlab", "--wrap", "true"], invalid)


def test_node_weight(make_cluster):
    c = make_cluster(nodes=2)
    conf = re.sub(r"^(NodeName=n2 .*)$", r"\1 Weight=10", c.conf.read_text(),
                  flags=re.M)
    c.conf.write_text(conf)
    restart_ctld(c)
    assert c.show_node("n2")["Weight"] == "10"
    assert c.show_node("n1")["Weight"] == "1"
    assert c.ok("sinfo", "-N", "-h", "-o", "%N %w") == "n1 1\nn2 10\n"
