"""scontrol's output as client tools parse it (COMPAT-SURFACE 2.4, rows
16-18 and 20), byte for byte against Slurm 22.05's layout, on a live
cluster holding a job in each finished state: completed, failed with exit
3, cancelled and timed out. Times, ids and names that differ from run to
run are put in place from the job itself; everything else is fixed text."""

import os
import pwd
import grp
import re
import shutil
import socket

import pytest

from conftest import BIN, Cluster, run, wait_for

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


@pytest.fixture(scope="module")
def done():
    """One node, four finished jobs: {state: job id}."""
    c = Cluster(nodes=1)
    c.up()
    try:
        jobs = {
            "COMPLETED": c.sbatch("--mem=100M", "-o", "/dev/null", "--wrap", "true"),
            "FAILED": c.sbatch("--mem=100M", "-o", "/dev/null", "--wrap", "exit 3"),
            "CANCELLED": c.sbatch("--mem=100M", "-o", "/dev/null", "--wrap",
                                  "sleep 300"),
            "TIMEOUT": c.sbatch("--mem=100M", "-o", "/dev/null", "-t", "0:2",
                                "--wrap", "sleep 300"),
        }
        jobs["PENDING"] = c.sbatch("-H", "--mem=100M", "-o", "/dev/null", "--wrap",
                                   "true")
        c.wait_state(jobs["CANCELLED"], "RUNNING")
        c.ok("scancel", str(jobs["CANCELLED"]))
        for state, jid in jobs.items():
            c.wait_state(jid, state, timeout=30)
        yield c, jobs
    finally:
        c.down()
        c.kill_leftovers()
        shutil.rmtree(c.dir, ignore_errors=True)


# A job that names no account gets its user's DefaultAccount: root's is
# root (the association that always exists); others have none.
DEFAULT_ACCOUNT = "root" if os.getuid() == 0 else "(null)"


def who():
    pw = pwd.getpwuid(os.getuid())
    return pw.pw_name, os.getuid(), grp.getgrgid(os.getgid()).gr_name, os.getgid()


def expected_block(c, jid, state, reason, exit_code, limit, detail=False):
    """Slurm 22.05's `scontrol show job` record, with <T> for times, <R>
    for the run time and <P> for the priority."""
    user, uid, group, gid = who()
    host = socket.gethostname()
    derived = "   DerivedExitCode=0:0\n" if detail else ""
    return (
        f"JobId={jid} JobName=wrap\n"
        f"   UserId={user}({uid}) GroupId={group}({gid}) MCS_label=N/A\n"
        f"   Priority=<P> Nice=0 Account={DEFAULT_ACCOUNT} QOS=normal\n"
        f"   JobState={state} Reason={reason} Dependency=(null)\n"
        f"   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode={exit_code}\n"
        f"{derived}"
        f"   RunTime=<R> TimeLimit={limit} TimeMin=N/A\n"
        f"   SubmitTime=<T> EligibleTime=<T>\n"
        f"   AccrueTime=<T>\n"
        f"   StartTime=<T> EndTime=<T> Deadline=N/A\n"
        f"   SuspendTime=None SecsPreSuspend=0 LastSchedEval=<T> Scheduler=Main\n"
        f"   Partition=debug AllocNode:Sid={host}:0\n"
        f"   ReqNodeList=(null) ExcNodeList=(null)\n"
        f"   NodeList=n1\n"
        f"   BatchHost=n1\n"
        f"   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
        f"   TRES=cpu=1,mem=100M,node=1,billing=1\n"
        f"   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
        f"   MinCPUsNode=1 MinMemoryNode=100M MinTmpDiskNode=0\n"
        f"   Features=(null) DelayBoot=00:00:00\n"
        f"   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
        f"   Command=(null)\n"
        f"   WorkDir={c.work}\n"
        f"   StdErr=/dev/null\n"
        f"   StdIn=/dev/null\n"
        f"   StdOut=/dev/null\n"
        f"   Power=\n"
        f"   \n\n")


def held_block(c, jid):
    """A held job as Slurm shows it: priority 0, no times, no nodes yet."""
    block = expected_block(c, jid, "PENDING", "JobHeldUser", "0:0", "UNLIMITED")
    block = block.replace("Priority=<P>", "Priority=0")
    block = block.replace("EligibleTime=<T>\n   AccrueTime=<T>",
                          "EligibleTime=Unknown\n   AccrueTime=Unknown")
    block = block.replace("StartTime=<T> EndTime=<T>",
                          "StartTime=Unknown EndTime=Unknown")
    return block.replace("NodeList=n1\n   BatchHost=n1\n", "NodeList=\n")


def normalize(text):
    text = re.sub(TIME, "<T>", text)
    text = re.sub(r"RunTime=\d\d:\d\d:\d\d", "RunTime=<R>", text)
    return re.sub(r"Priority=[1-9]\d*", "Priority=<P>", text)


CASES = [("COMPLETED", "None", "0:0", "UNLIMITED"),
         ("FAILED", "NonZeroExitCode", "3:0", "UNLIMITED"),
         ("CANCELLED", "None", "0:15", "UNLIMITED"),
         ("TIMEOUT", "TimeLimit", "0:15", "00:00:02")]


@pytest.mark.parametrize("state, reason, exit_code, limit", CASES)
def test_show_job_record(done, state, reason, exit_code, limit):
    c, jobs = done
    rc, out, err = c.run("scontrol", "show", "job", str(jobs[state]))
    assert (rc, err) == (0, "")
    assert normalize(out) == expected_block(c, jobs[state], state, reason,
                                            exit_code, limit)
    # the times are real times, in Slurm's order
    t = dict(re.findall(r"(\w+Time)=(" + TIME + ")", out))
    assert t["SubmitTime"] <= t["StartTime"] <= t["EndTime"]


def test_show_held_job(done):
    c, jobs = done
    rc, out, err = c.run("scontrol", "show", "job", str(jobs["PENDING"]))
    assert (rc, err) == (0, "")
    assert "RunTime=00:00:00 " in out
    assert normalize(out) == held_block(c, jobs["PENDING"])


def test_show_job_all_records_in_id_order(done):
    c, jobs = done
    rc, out, err = c.run("scontrol", "show", "job")
    assert (rc, err) == (0, "")
    blocks = {jobs[s]: expected_block(c, jobs[s], s, r, e, l) for s, r, e, l in CASES}
    blocks[jobs["PENDING"]] = held_block(c, jobs["PENDING"])
    assert normalize(out) == "".join(blocks[j] for j in sorted(blocks))


@pytest.mark.parametrize("args", [
    ["show", "jobid", "-dd", "{id}"],
    ["-dd", "show", "jobid", "{id}"],
    ["show", "jobid", "{id}", "-dd"],
    ["-d", "show", "job", "{id}"],
    ["--details", "show", "job", "{id}"],
])
def test_show_jobid_details_anywhere(done, args):
    c, jobs = done
    jid = jobs["FAILED"]
    rc, out, err = c.run("scontrol", *[a.format(id=jid) for a in args])
    assert (rc, err) == (0, "")
    assert normalize(out) == expected_block(c, jid, "FAILED", "NonZeroExitCode",
                                            "3:0", "UNLIMITED", detail=True)


def test_show_job_oneliner(done):
    c, jobs = done
    rc, out, err = c.run("scontrol", "-o", "show", "job", str(jobs["COMPLETED"]))
    assert (rc, err) == (0, "")
    block = expected_block(c, jobs["COMPLETED"], "COMPLETED", "None", "0:0",
                           "UNLIMITED")
    assert normalize(out) == block.replace("\n   ", " ")[:-1]


@pytest.mark.parametrize("arg, message", [
    ("999999", "slurm_load_jobs error: Invalid job id specified\n"),
    ("999999_1", "slurm_load_jobs error: Invalid job id specified\n"),
    ("abc", "scontrol_print_job error: Invalid job id specified\n"),
    ("1.2", "scontrol_print_job error: Invalid job id specified\n"),
])
def test_show_job_unknown_id(done, arg, message):
    c, _ = done
    assert c.run("scontrol", "show", "job", arg) == (1, "", message)


def test_show_job_task_of_a_job_that_is_no_array(done):
    c, jobs = done
    jid = jobs["COMPLETED"]
    assert c.run("scontrol", "show", "job", f"{jid}_1") == (
        1, f"Job {jid}_1 not found\n", "")


def test_show_job_words_as_slurm(done):
    c, jobs = done
    assert c.run("scontrol", "show", "job", "1", "2") == (
        1, "", "too many arguments for keyword:show\n")
    assert c.run("scontrol", "show") == (1, "", "too few arguments for keyword:show\n")
    assert c.run("scontrol", "show", "bogus") == (
        1, "", "invalid entity:bogus for keyword:show \n")
    assert c.run("scontrol", "bogus") == (1, "", "invalid keyword: bogus\n")
    assert c.run("scontrol", "--bogus", "show", "job") == (
        1, "", "scontrol: unrecognized option '--bogus'\n"
               'Try "scontrol --help" for more information\n')
    # 0 is "every job" to Slurm
    assert c.run("scontrol", "show", "job", "0") == c.run("scontrol", "show", "job")


def test_no_jobs_in_the_system(make_cluster):
    c = make_cluster(nodes=1)
    assert c.run("scontrol", "show", "job") == (0, "No jobs in the system\n", "")


# Slurm 22.05's `scontrol show config` keys, in its order (HASH_VAL, the
# client's check of its own slurm.conf, is left out; MaxMessageSize is
# Drover's).
CONFIG_KEYS = """AccountingStorageBackupHost AccountingStorageEnforce
AccountingStorageHost AccountingStorageExternalHost AccountingStorageParameters
AccountingStoragePort AccountingStorageTRES AccountingStorageType
AccountingStorageUser AccountingStoreFlags AcctGatherEnergyType
AcctGatherFilesystemType AcctGatherInterconnectType AcctGatherNodeFreq
AcctGatherProfileType AllowSpecResourcesUsage AuthAltTypes AuthAltParameters
AuthInfo AuthType BatchStartTimeout BcastExclude BcastParameters BOOT_TIME
BurstBufferType CliFilterPlugins ClusterName CommunicationParameters
CompleteWait CoreSpecPlugin CpuFreqDef CpuFreqGovernors CredType DebugFlags
DefMemPerCPU DependencyParameters DisableRootJobs EioTimeout EnforcePartLimits
Epilog EpilogMsgTime EpilogSlurmctld ExtSensorsType ExtSensorsFreq
FederationParameters FirstJobId GetEnvTimeout GresTypes GpuFreqDef
GroupUpdateForce GroupUpdateTime HealthCheckInterval HealthCheckNodeState
HealthCheckProgram InactiveLimit InteractiveStepOptions JobAcctGatherFrequency
JobAcctGatherType JobAcctGatherParams JobCompHost JobCompLoc JobCompPort
JobCompType JobCompUser JobContainerType JobCredentialPrivateKey
JobCredentialPublicCertificate JobDefaults JobFileAppend JobRequeue
JobSubmitPlugins KillOnBadExit KillWait LaunchParameters LaunchType Licenses
LogTimeFormat MailDomain MailProg MaxArraySize MaxDBDMsgs MaxJobCount MaxJobId
MaxMemPerNode MaxMessageSize MaxNodeCount MaxStepCount MaxTasksPerNode
MCSPlugin MCSParameters MessageTimeout MinJobAge MpiDefault MpiParams
MULTIPLE_SLURMD NEXT_JOB_ID NodeFeaturesPlugins OverTimeLimit PluginDir
PlugStackConfig PowerParameters PowerPlugin PreemptMode PreemptType
PreemptExemptTime PrEpParameters PrEpPlugins PriorityParameters
PrioritySiteFactorParameters PrioritySiteFactorPlugin PriorityType PrivateData
ProctrackType Prolog PrologEpilogTimeout PrologSlurmctld PrologFlags
PropagatePrioProcess PropagateResourceLimits PropagateResourceLimitsExcept
RebootProgram ReconfigFlags RequeueExit RequeueExitHold ResumeFailProgram
ResumeProgram ResumeRate ResumeTimeout ResvEpilog ResvOverRun ResvProlog
ReturnToService RoutePlugin SchedulerParameters SchedulerTimeSlice
SchedulerType ScronParameters SelectType SelectTypeParameters SlurmUser
SlurmctldAddr SlurmctldDebug SlurmctldHost[0] SlurmctldLogFile SlurmctldPort
SlurmctldSyslogDebug SlurmctldPrimaryOffProg SlurmctldPrimaryOnProg
SlurmctldTimeout SlurmctldParameters SlurmdDebug SlurmdLogFile SlurmdParameters
SlurmdPidFile SlurmdPort SlurmdSpoolDir SlurmdSyslogDebug SlurmdTimeout
SlurmdUser SlurmSchedLogFile SlurmSchedLogLevel SlurmctldPidFile
SlurmctldPlugstack SLURM_CONF SLURM_VERSION SrunEpilog SrunPortRange SrunProlog
StateSaveLocation SuspendExcNodes SuspendExcParts SuspendProgram SuspendRate
SuspendTime SuspendTimeout SwitchParameters SwitchType TaskEpilog TaskPlugin
TaskPluginParam TaskProlog TCPTimeout TmpFS TopologyParam TopologyPlugin
TrackWCKey TreeWidth UsePam UnkillableStepProgram UnkillableStepTimeout
VSizeFactor WaitTime X11Parameters""".split()


def config_lines(out):
    """{key: value} of `scontrol show config`, checking each line's padding."""
    lines = out.split("\n")
    assert re.fullmatch(r"Configuration data as of " + TIME, lines[0]), lines[0]
    assert lines[-3:] == ["", "Slurmctld(primary) at localhost is UP", ""], lines[-3:]
    keys, values = [], {}
    for line in lines[1:-3]:
        key, sep, value = line.partition(" = ")
        key = key.rstrip(" ")
        assert sep and line == f"{key:<23} = {value}", repr(line)
        keys.append(key)
        values[key] = value
    return keys, values


def test_show_config(done):
    c, jobs = done
    rc, out, err = c.run("scontrol", "show", "config")
    assert (rc, err) == (0, "")
    keys, v = config_lines(out)
    assert keys == CONFIG_KEYS
    # what Toil and the Snakemake plugin read, and Drover's real values
    assert v["SchedulerTimeSlice"] == "30 sec"
    assert v["AcctGatherNodeFreq"] == "0 sec"
    assert v["MinJobAge"] == "300 sec"
    assert v["MaxArraySize"] == "1001"
    assert v["KillWait"] == "1 sec"
    assert v["SlurmdTimeout"] == "5 sec"
    assert v["ClusterName"] == "drover"
    assert v["SlurmctldHost[0]"] == "localhost(127.0.0.1)"
    assert v["SLURM_CONF"] == str(c.conf)
    assert v["SLURM_VERSION"] == "22.05.8"
    assert v["NEXT_JOB_ID"] == str(max(jobs.values()) + 1)
    assert v["MaxNodeCount"] == "1"
    assert v["PowerPlugin"] == ""
    assert re.fullmatch(TIME, v["BOOT_TIME"])
    # `scontrol show config` takes (and ignores) a key name, as Slurm
    rc, out2, err = c.run("scontrol", "show", "config", "MinJobAge")
    assert rc == 0 and config_lines(out2)[0] == CONFIG_KEYS


def test_show_config_values_from_the_config(make_cluster):
    c = make_cluster(nodes=1, sets={"MinJobAge": "600", "MaxArraySize": "5000",
                                    "MessageTimeout": "20", "UsePAM": "no",
                                    "AccountingStoragePass": "hidden",
                                    "TaskPlugin": "task/affinity,task/cgroup",
                                    "SchedulerTimeSlice": "45"})
    keys, v = config_lines(c.ok("scontrol", "show", "config"))
    assert (v["MinJobAge"], v["MaxArraySize"], v["UsePam"]) == ("600 sec", "5000", "No")
    # keys Drover accepts without acting on them show what Drover does,
    # never the text written (docs/compat.md)
    assert (v["MessageTimeout"], v["SchedulerTimeSlice"]) == ("10 sec", "30 sec")
    assert v["TaskPlugin"] in ("task/cgroup", "task/none")
    assert "AccountingStoragePass" not in v and "hidden" not in str(v)


def nodelist_run(*args, env=None):
    base = {k: x for k, x in os.environ.items()
            if k not in ("SLURM_JOB_NODELIST", "SLURM_NODELIST", "DROVER_CONF")}
    return run([BIN / "scontrol", *args], env=dict(base, **(env or {})))


@pytest.mark.parametrize("word", ["hostnames", "hostname", "HOSTNAMES", "hostn"])
def test_show_hostnames(word):
    assert nodelist_run("show", word, "n[1-3],x") == (0, "n1\nn2\nn3\nx\n", "")
    assert nodelist_run("show", word, "gpu[01-02]x[3-4]") == (
        0, "gpu01x3\ngpu01x4\ngpu02x3\ngpu02x4\n", "")


def test_show_hostnames_from_the_job_environment():
    assert nodelist_run("show", "hostnames",
                        env={"SLURM_JOB_NODELIST": "n[7-8]"}) == (0, "n7\nn8\n", "")
    # Slurm 22.05 itself reads SLURM_NODELIST; both are set in a job
    assert nodelist_run("show", "hostname", env={"SLURM_NODELIST": "a,b"}) == (
        0, "a\nb\n", "")
    assert nodelist_run("show", "hostnames") == (
        0, "", "scontrol: error: host list is empty\n")
    assert nodelist_run("show", "hostnames", " ") == (0, "", "")


@pytest.mark.parametrize("expr, first", [
    ("n[3-1]", "scontrol: error: _parse_single_range: Invalid range: `3-1'\n"),
    ("n[a-b]", "scontrol: error: _parse_single_range: Invalid range: `a-b'\n"),
    ("n[1-100000000]",
     "scontrol: error: _parse_single_range: Too many hosts in range `1-100000000'\n"),
    ("n[1-2]]", ""),
])
def test_show_hostnames_bad_list(expr, first):
    """Slurm reports a bad list and still exits 0."""
    assert nodelist_run("show", "hostnames", expr) == (
        0, "", f"{first}Invalid hostlist: {expr}\n")


def test_show_hostnames_too_many_words():
    assert nodelist_run("show", "hostnames", "n1", "n2") == (
        1, "", "too many arguments for keyword:show\n")


PARTITION = """PartitionName=debug
   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL
   AllocNodes=ALL Default=YES QoS=N/A
   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO
   MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED
   Nodes=n1
   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO
   OverTimeLimit=NONE PreemptMode=OFF
   State=UP TotalCPUs={cpus} TotalNodes=1 SelectTypeParameters=NONE
   JobDefaults=(null)
   DefMemPerCPU={defmem} MaxMemPerNode=UNLIMITED
   TRES=cpu={cpus},mem={mem},node=1,billing={cpus}

"""


@pytest.mark.parametrize("args", [
    ["show", "partition"], ["show", "partition", "debug"], ["show", "part"],
    ["-M", "drover", "show", "partition"], ["show", "partition", "--clusters=drover"],
    ["--cluster", "drover", "show", "partitions", "debug"],
])
def test_show_partition(done, args):
    c, _ = done
    conf = c.conf.read_text()
    cpus = re.search(r"NodeName=n1 .*CPUs=(\d+)", conf).group(1)
    mem = int(re.search(r"NodeName=n1 .*RealMemory=(\d+)", conf).group(1))
    defmem = re.search(r"^DefMemPerCPU=(\d+)", conf, re.M).group(1)
    want = PARTITION.format(cpus=cpus, defmem=defmem,
                            mem=f"{mem // 1024}G" if mem % 1024 == 0 else f"{mem}M")
    assert c.run("scontrol", *args) == (0, want, "")


def test_show_partition_unknown(done):
    c, _ = done
    assert c.run("scontrol", "show", "partition", "nope") == (
        1, "Partition nope not found\n", "")


def test_suspend_still_refused(done):
    """suspend is refused, not ignored (requeue: test_requeue.py)."""
    c, jobs = done
    rc, out, err = c.run("scontrol", "suspend", str(jobs["COMPLETED"]))
    assert rc == 1 and out == "" and err
