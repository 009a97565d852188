"""Config errors are errors (issue 12, item 5): a slurm.conf's keys that are
harmless under Drover start a cluster; a key Slurm does not know, a value
Drover would not honour and a missing value are refused naming file:line,
by `drover-ctld -t` (exit 1) and by a daemon that then does not start."""

import re

import pytest

from conftest import BIN, run

# What an existing slurm.conf carries (the Slurm peer's, less what names
# its hosts), harmless or equivalent under Drover.
HARMLESS = {
    "TaskPlugin": "task/affinity,task/cgroup",
    "ProctrackType": "proctrack/cgroup",
    "MpiDefault": "none",
    "SelectType": "select/cons_tres",
    "SwitchType": "switch/none",
    "JobAcctGatherType": "jobacct_gather/linux",
    "JobAcctGatherFrequency": "task=2",
    "AccountingStorageType": "accounting_storage/slurmdbd",
    "CredType": "cred/munge",
    "SlurmctldDebug": "info",
    "SlurmdDebug": "info",
    "MailProg": "/bin/true",
    "ReturnToService": "2",
    "GresTypes": "gpu",
    "MaxJobCount": "50000",
    "InactiveLimit": "0",
    "OverTimeLimit": "0",
    "SlurmctldTimeout": "30",
    "MessageTimeout": "30",
}


def test_a_slurm_conf_with_harmless_keys_starts(make_cluster):
    c = make_cluster(nodes=1, sets=HARMLESS)
    jid = c.sbatch("--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
    v = {k.strip(): x.strip() for k, x in
         (l.split("=", 1) for l in c.ok("scontrol", "show", "config").splitlines()
          if " = " in l)}
    # what Drover does, never the text written
    assert v["TaskPlugin"] in ("task/cgroup", "task/none")
    assert v["MessageTimeout"] == "10 sec"
    assert "slurmdbd" not in v["AccountingStorageType"]


@pytest.mark.parametrize("line, message", [
    ("SlurmdTimout=30",
     "Parsing error at unrecognized key: SlurmdTimout (did you mean SlurmdTimeout?)"),
    ("NodeName=x CPUs= RealMemory=4096", "the value of CPUs is missing"),
    ("TaskPlugin=task/affinity,task/bogus",
     "TaskPlugin=task/affinity,task/bogus: Drover does not do what this asks; "
     "it takes task/affinity, task/cgroup, task/none (docs/compat.md)"),
    ("PreemptType=preempt/qos",
     "PreemptType=preempt/qos: Drover does not do what this asks; "
     "it takes preempt/none (docs/compat.md)"),
    ("RebootProgram=/usr/sbin/reboot",
     "RebootProgram=/usr/sbin/reboot: Drover does not do what this asks; "
     "remove the line (docs/compat.md)"),
    ("PartitionName=typo Nodes=ALL MaxTme=1",
     "Parsing error at unrecognized key: MaxTme (did you mean MaxTime?)"),
])
def test_bad_config_refused_with_the_exact_line(cluster, tmp_path, line, message):
    good = cluster.conf.read_text()
    bad = tmp_path / "bad.conf"
    # the error sits in the middle of the file: its own line number
    lines = good.splitlines()
    at = len(lines) // 2
    bad.write_text("\n".join(lines[:at] + [line] + lines[at:]) + "\n")
    want = f"drover-ctld: error: {bad}:{at + 1}: {message}\n"
    assert run([BIN / "drover-ctld", "-t", "-f", bad]) == (1, "", want)
    # a daemon does not start on it, saying the same
    rc, out, err = run([BIN / "drover-ctld", "-D", "-f", bad], timeout=20)
    assert (rc, err) == (1, want)
    # ... and neither does a client command (Slurm's scontrol is fatal too)
    rc, out, err = cluster.run("squeue", env=dict(cluster.env, DROVER_CONF=str(bad)))
    assert rc != 0 and f"{bad}:{at + 1}: {message}" in err, err


def test_drover_up_with_a_misspelt_set_starts_nothing(tmp_path):
    d = tmp_path / "c"
    rc, out, err = run([BIN / "drover", "up", "--dir", d, "--nodes", "1",
                        "--set", "SlurmdTimout=5"], timeout=60)
    conf = d / "drover.conf"
    assert rc == 1 and out == "", err
    assert re.search(rf"^drover up: {re.escape(str(conf))}:\d+: Parsing error at "
                     r"unrecognized key: SlurmdTimout \(did you mean SlurmdTimeout\?\)$",
                     err, re.M), err
    # not kept: the next drover up, --set corrected, writes a new one
    assert not conf.exists()
    assert not list((d / "run").glob("*.pid"))
