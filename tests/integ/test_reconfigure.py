"""`scontrol reconfigure` (issue 12, item 2): ctld reads its drover.conf
again; keys that may change live take effect, a changed key that cannot is
refused naming it, and a broken file leaves ctld on the config it had.
Refusals print Slurm's `slurm_reconfigure error: ...`, exit 1, and change
nothing."""

import os
import re

import pytest

from conftest import as_nobody_prefix, wait_for


def show_config(c, env=None):
    out = c.ok("scontrol", "show", "config", env=env)
    return {k.strip(): v.strip() for k, v in
            (l.split("=", 1) for l in out.splitlines() if " = " in l)}


def set_key(text, key, value):
    """text with key=value in place of its line, or appended."""
    new, n = re.subn(rf"^{key}=.*$", f"{key}={value}", text, flags=re.M)
    return new if n else text + f"{key}={value}\n"


def test_live_keys_take_effect(cluster):
    c = cluster
    conf = c.conf.read_text()
    c.conf.write_text(set_key(set_key(conf, "MinJobAge", "123"), "MaxArraySize", "5"))
    assert c.run("scontrol", "reconfigure") == (0, "", "")
    v = show_config(c)
    assert (v["MinJobAge"], v["MaxArraySize"]) == ("123 sec", "5")
    # the new limit is the one submissions meet
    rc, out, err = c.run("sbatch", "--array=0-9", "--wrap", "true")
    assert rc == 1 and "Invalid job array specification" in err, err
    assert "reconfigure: MinJobAge,MaxArraySize" in c.log()


def client_env(c, conf):
    """scontrol reads a copy of the config as it was (a login node's)."""
    client = c.conf.with_name("client.conf")
    client.write_text(conf)
    return dict(c.env, DROVER_CONF=str(client))


def test_key_that_cannot_change_live_is_refused(cluster):
    c = cluster
    conf = c.conf.read_text()
    env = client_env(c, conf)
    before = show_config(c)
    port = before["SlurmctldPort"]
    # with it, a key that could change: all or nothing
    c.conf.write_text(set_key(set_key(conf, "SlurmctldPort", str(int(port) + 1)),
                              "MinJobAge", "77"))
    assert c.run("scontrol", "reconfigure", env=env) == (
        1, "", "slurm_reconfigure error: SlurmctldPort cannot change live: "
               "restart drover-ctld\n")
    assert show_config(c, env=env)["MinJobAge"] == before["MinJobAge"]
    # a node line neither
    c.conf.write_text(re.sub(r"^(NodeName=n1 .*)$", r"\1 Weight=9", conf, flags=re.M))
    assert c.run("scontrol", "reconfigure", env=env) == (
        1, "", "slurm_reconfigure error: NodeName lines cannot change live: "
               "restart drover-ctld\n")
    # the file as it was: nothing to refuse
    c.conf.write_text(conf)
    assert c.run("scontrol", "reconfigure") == (0, "", "")


def test_broken_config_keeps_the_old_one(cluster):
    c = cluster
    conf = c.conf.read_text()
    # scontrol reads a good copy; ctld reads the broken one
    env = client_env(c, conf)
    before = show_config(c, env=env)
    lines = set_key(conf, "MinJobAge", "42").splitlines()
    lines.insert(3, "SlurmdTimout=3")
    c.conf.write_text("\n".join(lines) + "\n")
    rc, out, err = c.run("scontrol", "reconfigure", env=env)
    assert (rc, out, err) == (
        1, "", f"slurm_reconfigure error: {c.conf}:4: Parsing error at unrecognized "
               "key: SlurmdTimout (did you mean SlurmdTimeout?)\n")
    assert show_config(c, env=env) == before
    assert "reconfigure refused, the config stays as it was" in c.log()
    # ctld goes on serving
    assert c.run("squeue", env=env)[0] == 0
    c.conf.write_text(conf)


def test_nodes_take_the_live_keys_too(cluster, tmp_path):
    """A key drover-noded reads (Prolog) changes live on every node."""
    c = cluster
    mark = tmp_path / "prolog.ran"
    prolog = tmp_path / "prolog.sh"
    prolog.write_text(f"#!/bin/sh\necho $SLURM_JOB_ID >> {mark}\n")
    prolog.chmod(0o755)
    conf = c.conf.read_text()
    c.conf.write_text(set_key(conf, "Prolog", str(prolog)))
    assert c.run("scontrol", "reconfigure") == (0, "", "")
    for n in ("n1", "n2"):
        wait_for(lambda: f"node={n} reconfigure: Prolog" in c.log(n), 10,
                 what=f"{n} to read its config again")
    jobs = [c.sbatch("-w", n, "--wrap", "true") for n in ("n1", "n2")]
    for jid in jobs:
        assert c.wait_done(jid)["JobState"] == "COMPLETED"
    assert sorted(mark.read_text().split()) == sorted(map(str, jobs))  # each node
    c.conf.write_text(conf)
    assert c.run("scontrol", "reconfigure") == (0, "", "")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become nobody")
def test_only_an_admin_may_reconfigure(cluster):
    c = cluster
    conf = c.conf.read_text()
    c.conf.write_text(set_key(conf, "MinJobAge", "55"))
    nobody = as_nobody_prefix() + [c.bin / "scontrol"]
    # Slurm's ctld answers ESLURM_USER_ID_MISSING
    assert c.run(*nobody, "reconfigure") == (
        1, "", "slurm_reconfigure error: Invalid user id\n")
    assert show_config(c)["MinJobAge"] != "55 sec"
    c.conf.write_text(conf)
