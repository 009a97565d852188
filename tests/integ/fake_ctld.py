#!/usr/bin/python3
"""A stand-in "ctld" for the forged-reply test: it listens on a cluster's
ctld port and answers every request with a well-formed reply whose
credential it had the cluster's authd sign for whoever runs it. Run as an
ordinary local user, that is exactly what any user on the host can do.

usage: fake_ctld.py PORT AUTHD_SOCKET LOG
It appends each request type it answered to LOG, one a line, and prints
"listening" once it accepts connections."""

import hashlib
import socket
import sys

from wire import authd_sign, canonical, recv_frame, send_frame


def serve(conn, authd, log):
    conn.settimeout(10)
    req = recv_frame(conn)
    if not req:
        return
    # Plausible for the commands the test runs: sbatch reads job_id, the
    # listings read their arrays (absent arrays read as empty).
    if req["type"] == "job.submit":
        body = {"job_id": 4242}
    else:
        body = {"jobs": [], "nodes": [], "partitions": []}
    reply = {"v": 1, "type": "reply", "id": req["id"], "rc": 0, "body": body}
    reply["cred"] = authd_sign(authd, hashlib.sha256(canonical(reply)).hexdigest())["body"]["cred"]
    with open(log, "a") as f:  # before the reply: the client may exit at once
        f.write(req["type"] + "\n")
    send_frame(conn, reply)


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
