"""`xnn-opt` in the lit suite (lit.cfg puts it first on PATH): a run with passes goes to the
warm server (`xnn_opt_server.py`), which forks it with the tool already imported; any other
run, or one the server does not take, is the real tool (`XNNC_LIT_XNN_OPT`). Standard
library only: this script starts in tens of milliseconds."""

import json
import os
import socket
import struct
import sys


def served() -> int | None:
    """The run's exit code from the server, or None when it did not run it."""
    argv = sys.argv
    if not any(a in ("-p", "--passes") or a.startswith("--passes=") for a in argv[1:]):
        return None  # no pass: the run imports little, and the real tool is as fast
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        conn.connect(os.environ["XNNC_LIT_SERVER"])
    except (KeyError, OSError):
        return None
    request = {"argv": ["xnn-opt", *argv[1:]], "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
    reply = b""
    while len(reply) < 4:
        part = conn.recv(4 - len(reply))
        if not part:  # the handler died: the run may have written, so it is not rerun
            print("xnn-opt: the lit suite's warm server went away", file=sys.stderr)
            return 1
        reply += part
    (code,) = struct.unpack("!i", reply)
    return None if code < 0 else code


if __name__ == "__main__":
    code = served()
    if code is None:
        tool = os.environ["XNNC_LIT_XNN_OPT"]
        os.execv(tool, [tool, *sys.argv[1:]])
    sys.exit(code)
