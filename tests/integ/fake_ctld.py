#!/usr/bin/python3
"""A stand-in "ctld" for the forged-reply test: it listens on a cluster's
ctld port and answers every request with a well-formed reply whose
credential it had the cluster's authd sign for whoever runs it. Run as an
ordinary local user, that is exactly what any user on the host can do.

usage: fake_ctld.py PORT AUTHD_SOCKET LOG
It appends each request type it answered to LOG, one a line, and prints
"listening" once it accepts connections."""

import hashlib
import json
import socket
import struct
import sys


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(s):
    hdr = recv_exact(s, 4)
    if hdr is None:
        return None
    (word,) = struct.unpack(">I", hdr)
    body = recv_exact(s, word & 0x7FFFFFFF)
    return json.loads(body) if body is not None else None


def send_frame(s, obj):
    payload = json.dumps(obj).encode()
    s.sendall(struct.pack(">I", len(payload)) + payload)


def canonical(obj):
    # jansson's JSON_COMPACT | JSON_SORT_KEYS, as ctld and authd hash it
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def authd_sign(path, digest):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(path)
    send_frame(s, {"v": 1, "type": "auth.sign", "id": 1, "body": {"digest": digest}})
    reply = recv_frame(s)
    s.close()
    return reply["body"]["cred"]


def serve(conn, authd, log):
    conn.settimeout(10)
    req = recv_frame(conn)
    if not req:
        return
    # Plausible for the commands the test runs: sbatch reads job_id, the
    # listings read their arrays (absent arrays read as empty).
    body = {"job_id": 4242, "jobs": [], "nodes": [], "partitions": []}
    reply = {"v": 1, "type": "reply", "id": req["id"], "rc": 0, "body": body}
    reply["cred"] = authd_sign(authd, hashlib.sha256(canonical(reply)).hexdigest())
    send_frame(conn, reply)
    with open(log, "a") as f:
        f.write(req["type"] + "\n")


def main():
    port, authd, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(16)
    print("listening", flush=True)
    while True:
        conn, _ = ls.accept()
        try:
            serve(conn, authd, log)
        except (OSError, ValueError, KeyError):
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    main()
