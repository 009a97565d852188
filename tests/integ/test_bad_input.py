"""Bad input is refused with a clear message and a non-zero exit, changes
nothing, and every daemon keeps serving: bad sbatch options, a malformed
config, and hostile frames sent to ctld's port by a raw socket."""

import json
import os
import re
import socket
import struct

import pytest

from conftest import BIN, run
from wire import frame, recv_frame  # noqa: F401 (other tests import them from here)


def assert_still_serving(c, jobs_before):
    rc, out, err = c.run("squeue", "-h", "-o", "%i")
    assert rc == 0, f"squeue failed after bad input: {err}"
    assert sorted(int(x) for x in out.split()) == jobs_before, "the job list changed"


@pytest.mark.parametrize("args, message", [
    (["-t", "99:99:99:99"], "time"),
    (["-N", "abc"], '"abc" is not a valid node count'),
    (["-p", "nosuch"], "Invalid partition name specified"),
    (["--bogus-option"], "unrecognized option"),
])
def test_bad_sbatch_input(make_cluster, args, message):
    c = make_cluster(nodes=1)
    keep = c.sbatch("-H", "--wrap", "true")  # held: stays PENDING
    rc, out, err = c.run("sbatch", *args, "--wrap", "echo should not run")
    assert rc != 0, f"sbatch {args} succeeded: {out}"
    assert out == ""
    assert message.lower() in err.lower(), err
    assert len(err.strip().splitlines()) <= 3, f"not a clear message: {err}"
    assert_still_serving(c, [keep])


def test_malformed_config_is_refused_with_file_and_line(cluster, tmp_path):
    good = cluster.conf.read_text()
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", cluster.conf])
    assert rc == 0, f"drover-ctld -t on a good config failed: {out}{err}"

    bad = tmp_path / "bad.conf"
    bad.write_text(good + "this line has no equals sign\n")
    line = len(good.splitlines()) + 1
    for prog in ("drover-ctld", "drover-noded"):
        extra = ["-N", "n1"] if prog == "drover-noded" else []
        rc, out, err = run([BIN / prog, "-t", "-f", bad, *extra])
        assert rc != 0, f"{prog} -t accepted a malformed config"
        assert f"{bad}:{line}" in out + err, out + err

    bad.write_text(good + "NodeName=n9 CPUs=lots\n")
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", bad])
    assert rc != 0
    assert f"{bad}:{line}" in out + err, out + err

    # A key Slurm does not know is an error naming file:line, as in Slurm
    # (test_conf_errors.py has the rest).
    unknown = tmp_path / "unknown.conf"
    unknown.write_text(good + "NoSuchKeyAnywhere=1\n")
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", unknown])
    assert rc == 1, out + err
    assert f"{unknown}:{line}: Parsing error at unrecognized key" in err, err

    # A value Drover cannot honour safely is an error naming file:line.
    noauth = tmp_path / "noauth.conf"
    noauth.write_text(re.sub(r"^AuthType=.*$", "AuthType=auth/none", good, flags=re.M))
    auth_line = next(i for i, l in enumerate(good.splitlines(), 1)
                     if l.startswith("AuthType="))
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", noauth])
    assert rc != 0
    assert f"{noauth}:{auth_line}" in err and "auth/none" in err, err

    # A daemon does not start on a malformed config.
    bad.write_text(re.sub(r"^SlurmctldPort=\d+", "SlurmctldPort=notaport", good, flags=re.M))
    rc, out, err = run([BIN / "drover-ctld", "-f", bad])
    assert rc != 0
    # ... and the running cluster keeps serving.
    assert_still_serving(cluster, [])


# --- raw frames -------------------------------------------------------------

def ctld_port(c):
    return int(re.search(r"^SlurmctldPort=(\d+)", c.conf.read_text(), re.M).group(1))


def connect(c):
    s = socket.create_connection(("127.0.0.1", ctld_port(c)), timeout=5)
    s.settimeout(5)
    return s


def envelope(type_, body, **extra):
    return json.dumps(dict({"v": 1, "type": type_, "id": 7, "body": body}, **extra)).encode()


SUBMIT = {"script": "#!/bin/sh\ntouch /tmp/drover-forged-job-ran\n", "name": "forged",
          "nodes": 1, "workdir": "/tmp", "submit_dir": "/tmp", "env": [],
          "export": "ALL", "hold": False, "submit_host": "localhost", "user": "root"}


def test_hostile_frames_are_refused_and_ctld_keeps_serving(cluster):
    jobs = cluster.job_ids()
    log_before = len(cluster.log())

    # Not JSON: an error reply (rc 1001) and the connection stays usable.
    s = connect(cluster)
    s.sendall(frame(b"this is not json"))
    reply = recv_frame(s)
    assert reply and reply["type"] == "reply" and reply["rc"] == 1001, reply
    assert reply.get("error")
    # Unsigned request (no credential) on the same connection: refused.
    s.sendall(frame(envelope("job.submit", SUBMIT)))
    reply = recv_frame(s)
    assert reply and reply["rc"] != 0, reply
    s.close()
    assert_still_serving(cluster, jobs)

    # A forged credential.
    cred = {"uid": 0, "gid": 0, "host": "localhost", "issued": 1, "expires": 2**40,
            "nonce": "00" * 16, "digest": "00" * 32, "mac": "11" * 32}
    s = connect(cluster)
    s.sendall(frame(envelope("job.submit", SUBMIT, cred=cred)))
    reply = recv_frame(s)
    assert reply and reply["rc"] == 1007, reply
    s.close()

    # Truncated: a length word promising more than ever comes.
    s = connect(cluster)
    s.sendall(struct.pack(">I", 1000) + b'{"v":1,"ty')
    s.close()
    assert_still_serving(cluster, jobs)

    # Oversize: refused before the body is read, then the connection is closed.
    s = connect(cluster)
    s.sendall(struct.pack(">I", 64 << 20) + b"{" * 1024)
    reply = recv_frame(s)
    if reply is not None:
        assert reply["rc"] != 0
        assert recv_frame(s) is None, "connection must be closed after an oversize frame"
    s.close()
    assert_still_serving(cluster, jobs)

    # A daemon frame with a forged HMAC: logged and the connection closed.
    reg = envelope("node.register", {"name": "n1", "cpus": 1, "real_memory": 1,
                                     "port": 1, "version": "x", "boot_time": 0,
                                     "jobs": []})
    s = connect(cluster)
    s.sendall(frame(reg, mac=os.urandom(32)))
    assert recv_frame(s) is None, "a frame with a bad HMAC must close the connection"
    s.close()

    assert_still_serving(cluster, jobs)
    assert not os.path.exists("/tmp/drover-forged-job-ran")
    rc, out, err = cluster.run("scontrol", "show", "node", "n1")
    assert rc == 0 and "State=IDLE" in out, out
    log = cluster.log()[log_before:]
    assert "HMAC" in log, f"ctld must log why it refused:\n{log}"
    assert len(log.splitlines()) >= 5, f"each refusal should be logged:\n{log}"
