"""The suite's own way of starting a reference server on a free port: a port taken by another
process between "free" and the server's bind (another worker's server, as happened in a full
run: every test of a module then talked to the wrong server) is noticed, and the server is
started again on another port."""

from __future__ import annotations

import socket
import sys

import pytest

import reference_servers
from reference_servers import serving_on_a_free_port

# A server that binds the port it is given and waits; it exits (EADDRINUSE) when it cannot.
BINDS = (
    "import signal, socket, sys; s = socket.socket(); "
    "s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); signal.pause()"
)

# slow: each test starts a server process (the quick lane's guard, tests/conftest.py)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads who listens from /proc"),
]


def test_a_port_taken_before_the_server_binds_it_is_given_up_for_another(monkeypatch):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        offered = iter([taken])
        real_free_port = reference_servers.free_port
        monkeypatch.setattr(reference_servers, "free_port", lambda: next(offered, None) or real_free_port())
        with serving_on_a_free_port(lambda port: ([sys.executable, "-c", BINDS, str(port)], {})) as port:
            assert port != taken
            # the listener on the yielded port is the server's own, not someone else's
            assert reference_servers._listening_inodes(port)


def test_a_server_that_fails_on_a_free_port_says_why():
    with pytest.raises(RuntimeError, match="exited with 3"):
        with serving_on_a_free_port(lambda port: ([sys.executable, "-c", "raise SystemExit(3)"], {})):
            pass
