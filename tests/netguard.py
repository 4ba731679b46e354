"""Run ``python -m agentdex ARGS`` with every name lookup and connection written down.

``python tests/netguard.py LOG ARGS...`` patches :func:`socket.getaddrinfo` and the
connecting calls of :class:`socket.socket` (``connect``, ``connect_ex``, ``sendto``) before
agentdex is imported, then runs the CLI. Each call appends one line to ``LOG``:
``lookup HOST`` for a name handed to the machine's resolver (an IP literal is no lookup),
``connect ADDR PORT`` for a connection or datagram to an internet address. The test that
reads it fails on a lookup or on an address that is not loopback: what a trace of the
process's system calls (strace) would show, without needing strace.
"""

from __future__ import annotations

import ipaddress
import runpy
import socket
import sys
import threading

_lock = threading.Lock()


def _write(log: str, line: str) -> None:
    with _lock, open(log, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def _is_literal(host: object) -> bool:
    if host is None:
        return True  # a passive (bind) lookup names no host
    text = host.decode() if isinstance(host, bytes) else str(host)
    try:
        ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    return True


def install(log: str) -> None:
    """Write every resolver lookup and internet connection of this process to ``log``."""
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if not _is_literal(host):
            _write(log, f"lookup {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    def noted(name: str):
        real = getattr(socket.socket, name)

        def call(self, *args):
            address = args[-1]
            if self.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
                _write(log, f"connect {address[0]} {address[1]}")
            return real(self, *args)

        return call

    socket.getaddrinfo = getaddrinfo
    for name in ("connect", "connect_ex", "sendto"):
        setattr(socket.socket, name, noted(name))


if __name__ == "__main__":
    install(sys.argv[1])
    sys.argv = ["agentdex", *sys.argv[2:]]
    runpy.run_module("agentdex", run_name="__main__", alter_sys=True)
