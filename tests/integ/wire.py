"""Drover's framing and credentials as the scenario tests and their helper
programs (fake_ctld.py, flood_ctld.py, which run as other users) speak
them: a 4-byte big-endian length word (top bit: a 32-byte HMAC follows),
then the JSON envelope; digests over jansson's canonical JSON."""

import json
import socket
import struct


def frame(payload: bytes, mac: bytes = None):
    word = len(payload) | (0x80000000 if mac is not None else 0)
    return struct.pack(">I", word) + payload + (mac or b"")


def send_frame(s, obj):
    s.sendall(frame(json.dumps(obj).encode()))


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(s):
    """The next frame's JSON, or None when the peer closed the connection."""
    try:
        hdr = recv_exact(s, 4)
        if hdr is None:
            return None
        (word,) = struct.unpack(">I", hdr)
        body = recv_exact(s, word & 0x7FFFFFFF)
        if word & 0x80000000:
            recv_exact(s, 32)
        return json.loads(body) if body is not None else None
    except (ConnectionResetError, socket.timeout):
        return None


def canonical(obj):
    # jansson's JSON_COMPACT | JSON_SORT_KEYS, which ctld and authd hash
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def authd_sign(path, digest):
    """authd's reply to auth.sign for the calling user (the whole envelope)."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(str(path))
    send_frame(s, {"v": 1, "type": "auth.sign", "id": 1, "body": {"digest": digest}})
    reply = recv_frame(s)
    s.close()
    return reply
