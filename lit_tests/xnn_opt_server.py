"""A warm `xnn-opt` for the lit suite: each run forks a process that has already imported
what every `xnn-opt -p ...` run imports.

A run of `xnn-opt` with passes spends ~2 s of its ~2.5 s importing torch, xDSL and the pass
registry, and the suite runs it 300 times. lit.cfg starts this server once, with the tests'
environment, and puts `xnn_opt_client.py` first on PATH as `xnn-opt`. For each run the
client sends its arguments, working directory and environment, and its stdin, stdout and
stderr as file descriptors (SCM_RIGHTS); the server forks a handler, which forks the run
itself: the run takes those descriptors as its own, calls the tool's `main` and exits with
its code, which the handler sends back. A run is a fresh process in all but its imports,
which are those every run with passes makes (`pass_classes()`), so a run that forgets an
import of its own still fails here.

The server refuses (and the client runs the real tool) when a variable read at import time
differs from the one it started with; a run takes the client's environment over. It exits
when lit, its parent, does.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys
import tempfile

# What every `xnn-opt -p ...` imports: the tool and every pass (the registry loads them all).
from xnnc.pipeline.registry import pass_classes
from xnnc.tools import xnn_opt

pass_classes()

# Variables read while importing (Python's own, the thread pools', xnnc's): a run whose
# values differ is not served. The others (lit's per-run TMPDIR, ...) the run takes over.
AT_IMPORT = ("PYTHON", "XNNC_", "LD_", "OMP_", "OPENBLAS_", "MKL_", "TORCH", "PYTORCH")


def at_import(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items()
            if k.startswith(AT_IMPORT) and not k.startswith("XNNC_LIT_")}  # fmt: skip


def run(conn: socket.socket, request: dict, fds: list[int]) -> int:
    """The run, in a process of its own: the client's descriptors as 0, 1 and 2."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    conn.close()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    tempfile.tempdir = None  # read again from TMPDIR
    sys.argv = request["argv"]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = xnn_opt.main(request["argv"][1:])
    except SystemExit as e:  # argparse: --help, bad arguments
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            pass
    return code


def handle(conn: socket.socket) -> None:
    """One client, in a handler process: fork the run, wait for it, send its status."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # A SOCK_SEQPACKET socket: the request arrives whole in one read, as it was sent.
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    if len(fds) != 3 or at_import(request["env"]) != at_import(dict(os.environ)):
        conn.sendall(struct.pack("!i", -1))  # not served: the client runs the real tool
        return
    pid = os.fork()
    if pid == 0:
        os._exit(run(conn, request, fds))
    for fd in fds:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    conn.sendall(struct.pack("!i", code if code >= 0 else 128 - code))


def serve(path: str) -> None:
    parent = os.getppid()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped as they exit
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(path + ".tmp")
    os.rename(path + ".tmp", path)  # the socket appears once it listens, with all imported
    server.listen(16)
    server.settimeout(1.0)
    while os.getppid() == parent:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        if os.fork() == 0:
            server.close()
            conn.settimeout(None)
            try:
                handle(conn)
            finally:
                os._exit(0)
        conn.close()
    os.unlink(path)


if __name__ == "__main__":
    serve(sys.argv[1])
