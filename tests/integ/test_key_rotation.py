"""Key rotation: `drover keygen --rotate` while clients keep working.

Every daemon (ctld, each noded, authd) notices the rotated key file by itself
within a second, signs with the new key and still accepts the previous one
for AuthInfo key_grace seconds; after that, what the old key signs is a "bad
MAC" (a client credential) or a "bad HMAC" (a daemon frame)."""

import hashlib
import hmac
import json
import os
import stat
import struct
import threading
import time

from conftest import wait_for
from test_bad_input import connect
from wire import authd_sign, canonical, frame, recv_frame

ROTATED = "changed: signing with the new key"
FORGOTTEN = "is forgotten (key_grace over)"


def logs(c):
    """Every daemon's log: ctld, authd and each noded."""
    names = ["ctld.log", "authd.log"] + [f"noded-n{i + 1}.log" for i in range(c.nodes)]
    return {n: (c.dir / "log" / n).read_text(errors="replace")
            if (c.dir / "log" / n).exists() else "" for n in names}


class Loop(threading.Thread):
    """Runs one client command over and over until stopped, keeping every
    failure and, for sbatch, every acknowledged job id."""

    def __init__(self, c, *cmd):
        super().__init__(daemon=True)
        self.c, self.cmd = c, cmd
        self.stop, self.runs, self.failures, self.jobs = False, 0, [], []

    def run(self):
        while not self.stop:
            rc, out, err = self.c.run(*self.cmd, timeout=30)
            if rc != 0:
                self.failures.append((rc, out, err))
            elif self.cmd[0] == "sbatch":
                self.jobs.append(int(out.strip().split(";")[0]))
            self.runs += 1


def test_rotation_under_load_loses_no_request(make_cluster):
    c = make_cluster(nodes=2)
    key = c.dir / "drover.key"
    old = key.read_bytes()
    loops = [Loop(c, "sbatch", "--parsable", "--wrap", "true"), Loop(c, "squeue", "-h")]
    for t in loops:
        t.start()
    try:
        wait_for(lambda: all(t.runs >= 5 for t in loops), 60, what="both loops running")
        rc, out, err = c.drover("keygen", "--rotate", str(key))
        assert rc == 0, err
        assert "rotated cluster key" in err
        # every daemon says it now signs with the new key
        wait_for(lambda: all(ROTATED in text for text in logs(c).values()), 15,
                 what="every daemon to load the rotated key")
        marks = [t.runs for t in loops]
        wait_for(lambda: all(t.runs >= m + 5 for t, m in zip(loops, marks)), 60,
                 what="both loops to go on with the new key")
    finally:
        for t in loops:
            t.stop = True
        for t in loops:
            t.join(60)
    for t in loops:
        assert not t.failures, f"{t.cmd[0]} failed during the rotation: {t.failures[:3]}"
    assert key.read_bytes() != old
    prev = c.dir / "drover.key.prev"
    assert prev.read_bytes() == old
    assert stat.S_IMODE(os.stat(prev).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    jobs = loops[0].jobs
    assert len(jobs) >= 10
    for jid in jobs:  # acknowledged means it exists, and it runs to the end
        assert c.wait_done(jid, timeout=60)["JobState"] == "COMPLETED", jid
    rc, out, err = c.run("squeue", "-h", "-t", "all", "-o", "%i")
    assert rc == 0 and set(jobs) <= {int(x) for x in out.split()}, out


def signed_with(key, env):
    """env with a credential for it that looks like authd's, MACed with key."""
    digest = hashlib.sha256(canonical({k: v for k, v in env.items() if k != "cred"}))
    now = int(time.time())
    cred = {"uid": os.getuid(), "gid": os.getgid(), "host": "x", "issued": now,
            "expires": now + 60, "nonce": os.urandom(32).hex(),
            "digest": digest.hexdigest()}
    cred["mac"] = hmac.new(key, canonical(cred), hashlib.sha256).hexdigest()
    return dict(env, cred=cred)


def query(c, key):
    """A job.query signed with key, on a fresh connection: ctld's reply."""
    s = connect(c)
    env = signed_with(key, {"v": 1, "type": "job.query", "id": 3, "body": {}})
    s.sendall(frame(json.dumps(env).encode()))
    reply = recv_frame(s)
    s.close()
    return reply


def hello(c, key):
    """A daemon's conn.hello MACed with key: ctld's answering hello, or None
    when it closed the connection."""
    payload = json.dumps({"v": 1, "type": "conn.hello", "id": 0,
                          "body": {"nonce": os.urandom(32).hex()}}).encode()
    head = struct.pack(">I", len(payload) | 0x80000000)
    mac = hmac.new(key, head + payload, hashlib.sha256).digest()
    s = connect(c)
    s.sendall(frame(payload, mac=mac))
    reply = recv_frame(s)
    s.close()
    return reply


def test_old_key_is_refused_after_the_grace(make_cluster):
    c = make_cluster(nodes=1, start=False)
    c.sets["AuthInfo"] = (f"socket={c.dir}/run/authd.sock,key={c.dir}/drover.key,"
                          "key_grace=4")
    c.up()
    key = c.dir / "drover.key"
    old = bytes.fromhex(key.read_text().strip())
    assert query(c, old)["rc"] == 0  # the key in use: accepted
    log_before = len(c.log())
    rc, out, err = c.drover("keygen", "--rotate", str(key))
    assert rc == 0, err
    wait_for(lambda: ROTATED in c.log()[log_before:], 10, what="ctld to load the new key")
    # within the grace the old key still works, for clients and daemons
    assert query(c, old)["rc"] == 0
    reply = hello(c, old)
    assert reply and reply["type"] == "conn.hello", reply
    # after it, it is refused and forgotten
    wait_for(lambda: FORGOTTEN in c.log()[log_before:], 15, what="the old key to be forgotten")
    reply = query(c, old)
    assert reply and reply["rc"] == 1007, reply
    assert hello(c, old) is None, "a hello MACed with a forgotten key must close the link"
    new = bytes.fromhex(key.read_text().strip())
    assert query(c, new)["rc"] == 0
    log = c.log()[log_before:]
    assert "refused job.query from 127.0.0.1" in log and ": bad MAC" in log, log
    assert "bad HMAC from 127.0.0.1" in log, log
    # and the cluster works on with the new key
    jid = c.sbatch("--wrap", "true")
    assert c.wait_done(jid)["JobState"] == "COMPLETED"
