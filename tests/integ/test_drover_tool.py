"""The admin tool itself: help and version, keygen, the config `drover up`
writes, its stdout contract, and clear failures."""

import os
import re
import shutil
import socket
import stat

import pytest

from conftest import BIN, Cluster, run

PROGRAMS = ["drover", "drover-ctld", "drover-noded", "drover-authd", "drover-shepherd",
            "sbatch", "squeue", "scancel", "scontrol", "sacctmgr", "sshare", "sacct"]


@pytest.mark.parametrize("prog", PROGRAMS)
def test_every_program_has_help_and_version(prog):
    rc, out, err = run([BIN / prog, "--help"])
    assert rc == 0, err
    # Slurm's own texts: "Usage: sbatch ...", "scontrol [<OPTION>] [<COMMAND>]".
    assert prog in out or prog.replace("drover-", "") in out, out
    rc, out, err = run([BIN / prog, "--version"])
    assert rc == 0, err
    assert re.search(r"\d+\.\d+", out), out
    if prog != "drover":
        assert re.fullmatch(r"slurm 22\.05\.8 \(drover [^)]+\)\n", out), out
    else:
        assert re.fullmatch(r"drover [^ ]+ \(slurm 22\.05\.8\)\n", out), out


@pytest.mark.parametrize("sub", ["up", "down", "status", "keygen"])
def test_drover_subcommands_have_help_and_version(sub):
    rc, out, err = run([BIN / "drover", sub, "--help"])
    assert rc == 0 and out.startswith(f"Usage: drover {sub}"), out + err
    rc, out, err = run([BIN / "drover", sub, "--version"])
    assert rc == 0 and out.startswith("drover "), out + err


def test_unknown_command_and_option():
    rc, out, err = run([BIN / "drover", "frobnicate"])
    assert rc == 2 and "unknown command" in err
    rc, out, err = run([BIN / "drover", "up", "--bogus"])
    assert rc == 2 and "bogus" in err and out == ""
    rc, out, err = run([BIN / "drover", "up", "--nodes", "abc"])
    assert rc == 2 and "--nodes" in err and out == ""


def test_keygen_writes_private_key_and_never_overwrites(tmp_path):
    key = tmp_path / "k.key"
    rc, out, err = run([BIN / "drover", "keygen", key])
    assert rc == 0, err
    st = os.stat(key)
    assert stat.S_IMODE(st.st_mode) == 0o600
    first = key.read_bytes()
    rc, out, err = run([BIN / "drover", "keygen", key])
    assert rc != 0 and err
    assert key.read_bytes() == first
    # Default path: drover.key beside $DROVER_CONF.
    env = dict(os.environ, DROVER_CONF=str(tmp_path / "drover.conf"))
    rc, out, err = run([BIN / "drover", "keygen"], env=env)
    assert rc == 0, err
    assert (tmp_path / "drover.key").exists()


def test_up_prints_only_exports_and_writes_the_config(make_cluster):
    c = make_cluster(nodes=3, sets={"MinJobAge": "60"})
    lines = c.up_out.splitlines()
    assert lines == [f"export DROVER_CONF={c.conf}", f"export PATH={BIN}:$PATH",
                     f"export MANPATH={BIN}/man:$MANPATH"], lines
    conf = c.conf.read_text()
    keys = dict(re.findall(r"^(\w+)=(.*)$", conf, re.M))
    assert keys["ClusterName"] == "drover"
    assert keys["SlurmctldHost"] == "localhost(127.0.0.1)"
    assert keys["StateSaveLocation"] == f"{c.dir}/ctld"
    assert keys["SlurmdSpoolDir"] == f"{c.dir}/spool/%n"
    assert keys["AuthType"] == "auth/drover"
    assert keys["AuthInfo"] == f"socket={c.dir}/run/authd.sock,key={c.dir}/drover.key"
    assert keys["SlurmdTimeout"] == "5" and keys["KillWait"] == "1"  # --set replaced
    assert keys["MinJobAge"] == "60"
    assert conf.count("SlurmdTimeout=") == 1
    nodes = re.findall(r"^NodeName=(n\d) .*Port=(\d+)", conf, re.M)
    assert [n for n, _ in nodes] == ["n1", "n2", "n3"]
    ports = {int(p) for _, p in nodes} | {int(keys["SlurmctldPort"])}
    assert len(ports) == 4, "every daemon needs its own port"
    assert re.search(r"^PartitionName=debug Nodes=ALL Default=YES", conf, re.M)
    assert stat.S_IMODE(os.stat(c.dir / "drover.key").st_mode) == 0o600

    # `eval "$(drover up)"` in a shell gives working commands.
    rc, out, err = run(["bash", "-c", f'eval "$({BIN}/drover up --dir {c.dir})" && '
                        'command -v sbatch && echo "$DROVER_CONF" && squeue -h | wc -l'],
                       env={k: v for k, v in os.environ.items() if k != "DROVER_CONF"})
    assert rc == 0, err
    assert out.splitlines() == [str(BIN / "sbatch"), str(c.conf), "0"]


def test_up_fails_clearly_when_a_fixed_port_is_taken(make_cluster):
    # A config drover up did not write is never rewritten: it says why it failed.
    c = make_cluster(start=False)
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    port = blocker.getsockname()[1]
    template = Cluster(nodes=1)
    try:
        template.up()
        text = template.conf.read_text()
        template.down()
        text = re.sub(str(template.dir), str(c.dir), text)
        c.conf.write_text(re.sub(r"^SlurmctldPort=\d+", f"SlurmctldPort={port}", text,
                                 flags=re.M))
        rc, out, err = c.drover("up", "--dir", c.dir)
        assert rc != 0
        assert out == ""
        assert "ctld" in err and "in use" in err, err
        assert f"SlurmctldPort={port}" in c.conf.read_text()
    finally:
        blocker.close()
        template.kill_leftovers()
        shutil.rmtree(template.dir, ignore_errors=True)


def test_clusters_started_in_parallel_do_not_collide(make_cluster):
    import concurrent.futures
    cs = [make_cluster(nodes=1, start=False) for _ in range(3)]
    with concurrent.futures.ThreadPoolExecutor(3) as ex:
        list(ex.map(lambda c: c.up(), cs))
    for c in cs:
        jid = c.sbatch("--wrap", "echo $SLURM_CLUSTER_NAME")
        assert c.wait_done(jid)["JobState"] == "COMPLETED"
