#!/usr/bin/python3
"""The flooding user of test_flood.py: run as an ordinary local user, it
does what anyone on the host can do to ctld's port and authd's socket.

usage: flood_ctld.py PORT AUTHD_SOCKET IDLE HALF CREDS
  1. opens IDLE connections that never send anything and HALF that send
     the start of a frame and stop, and keeps them open;
  2. prints "holding" and then sends CREDS requests, each with a fresh
     credential that authd gladly signs for this user, on connections it
     keeps open too;
  3. prints one JSON line of counts: how many connections ctld closed,
     how many requests were answered, refused (rc 1007) or cut off."""

import hashlib
import json
import socket
import struct
import sys

from wire import authd_sign, canonical, frame, recv_frame


def closed(s):
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def main():
    port, authd, idle, half, creds = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    held = []
    for i in range(idle + half):
        s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
        if i >= idle:
            s.sendall(struct.pack(">I", 1 << 20) + b'{"v":1,"type":')
        held.append(s)
    print("holding", flush=True)

    counts = {"answered": 0, "refused": 0, "cut": 0}
    kept = []
    for i in range(creds):
        req = {"v": 1, "type": "job.query", "id": i + 1, "body": {"job_ids": [1]}}
        req["cred"] = authd_sign(authd, hashlib.sha256(canonical(req)).hexdigest())["body"]["cred"]
        try:
            s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
            s.sendall(frame(json.dumps(req).encode()))
            reply = recv_frame(s)
        except OSError:
            reply = None
        if reply is None:
            counts["cut"] += 1
        elif reply.get("rc") == 1007:
            counts["refused"] += 1
        else:
            counts["answered"] += 1
        kept.append(s)
    counts["held_closed"] = sum(closed(s) for s in held)
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
