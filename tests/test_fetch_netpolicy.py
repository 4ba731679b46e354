"""The address guard, --connect-to rules and the guarded network backend."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from agentdex.crawler.h1 import HostTransport
from agentdex.crawler.netpolicy import (
    ConnectTo,
    GuardedBackend,
    build_ssl_context,
    is_blocked_ip,
    numeric_address,
    parse_connect_to,
)
from agentdex.errors import BlockedAddress, ConnectError, FetchError, InputError
from netfixtures import TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401

BLOCKED = [
    "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1", "240.0.0.1", "255.255.255.255",
    "192.0.2.10", "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1",
    "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "2002:7f00:1::1", "64:ff9b::a00:1",
]  # fmt: skip
ALLOWED = ["93.184.216.34", "1.1.1.1", "8.8.4.4", "2606:4700:4700::1111", "::ffff:1.1.1.1"]


@pytest.mark.parametrize("address", BLOCKED)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert is_blocked_ip(address)


@pytest.mark.parametrize("address", ALLOWED)
def test_public_addresses_pass(address: str) -> None:
    assert is_blocked_ip(address) is None
    assert is_blocked_ip(ipaddress.ip_address(address)) is None


def test_garbage_is_refused() -> None:
    assert is_blocked_ip("not-an-ip") == "not an IP address"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("*.test:127.0.0.1:8443", ("*.test", "127.0.0.1", 8443)),
        ("*:[::1]:443", ("*", "::1", 443)),
        ("a.example:localhost:1", ("a.example", "localhost", 1)),
    ],
)
def test_connect_to_specs_parse(spec: str, expected: tuple[str, str, int]) -> None:
    assert parse_connect_to(spec) == expected


@pytest.mark.parametrize("spec", ["*", "*:127.0.0.1", ":127.0.0.1:80", "*:127.0.0.1:http", "*:127.0.0.1:70000"])
def test_bad_connect_to_specs_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError):
        parse_connect_to(spec)


def test_connect_to_patterns_are_case_insensitive_wildcards() -> None:
    rule = ConnectTo("*.Sample.TEST", "127.0.0.1", 1)
    assert rule.matches("A.sample.test") and rule.matches("b.sample.test.")
    assert not rule.matches("sample.test") and not rule.matches("a.sample.test.evil")


def test_an_unreadable_ca_bundle_is_an_input_error(tmp_path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    with pytest.raises(InputError):
        build_ssl_context(bad)


def _resolver(answers: dict[str, list[str]], calls: list[str]):
    async def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return answers[host]

    return resolve


async def test_every_resolved_address_is_checked() -> None:
    calls: list[str] = []
    backend = GuardedBackend(resolver=_resolver({"mixed.test": ["1.1.1.1", "127.0.0.1"]}, calls))
    with pytest.raises(BlockedAddress, match="127.0.0.1"):
        await backend.connect_tcp("mixed.test", 443)  # refused before any connection is tried
    assert calls == ["mixed.test"]


async def test_the_backend_connects_to_the_address_it_resolved(tls_server: TLSServer) -> None:
    # No system resolver knows rebind.test: a connection can only reach the address our
    # resolver answered, resolved exactly once.
    calls: list[str] = []
    backend = GuardedBackend(allow_private=True, resolver=_resolver({"rebind.test": ["127.0.0.1"]}, calls))
    stream = await backend.connect_tcp("rebind.test", tls_server.port, timeout=5)
    await stream.aclose()
    assert calls == ["rebind.test"]


async def test_a_connect_to_target_skips_the_guard_and_the_name(tls_server: TLSServer) -> None:
    calls: list[str] = []
    rules = [("*.test", "127.0.0.1", tls_server.port)]
    backend = GuardedBackend(connect_to=rules, resolver=_resolver({"127.0.0.1": ["127.0.0.1"]}, calls))
    stream = await backend.connect_tcp("anything.test", 443, timeout=5)
    await stream.aclose()
    assert calls == ["127.0.0.1"]


async def test_an_unresolvable_name_is_a_dns_error() -> None:
    async def fail(host: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    with pytest.raises(FetchError) as caught:
        await GuardedBackend(resolver=fail).connect_tcp("x.invalid", 443)
    assert caught.value.code == "dns"


async def test_the_transport_speaks_tls_over_the_guarded_connection(tls_server: TLSServer) -> None:
    # What the guard hands the transport carries an HTTPS exchange, verified for the URL's own
    # host name, never for the address it connected to: the server's certificate names
    # 127.0.0.1 and a.test, not c.test.
    backend = GuardedBackend(connect_to=[("*.test", "127.0.0.1", tls_server.port)])
    transport = HostTransport(build_ssl_context(tls_server.ca_path), backend, keep=1)
    try:
        response = await transport.handle_async_request(httpx.Request("GET", "https://a.test/json"))
        assert response.status_code == 200 and b'"path": "/json"' in await response.aread()
    finally:
        await transport.aclose()
    other = HostTransport(build_ssl_context(tls_server.ca_path), backend, keep=1)
    try:
        with pytest.raises(ConnectError, match="certificate"):
            await other.handle_async_request(httpx.Request("GET", "https://c.test/json"))
    finally:
        await other.aclose()
    assert tls_server.hit_count("a.test", "/json") == 1 and tls_server.hit_count("c.test", "/json") == 0


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.0.0.1", "10.0.0.1"),
        ("[::1]", "::1"),
        ("::ffff:127.0.0.1", "::ffff:7f00:1"),
        ("example.test", None),
        ("cafe", None),
        ("1.example", None),
    ],
)
def test_a_host_written_as_a_number_is_the_address_getaddrinfo_reads(host, address):
    # The --dns-server resolver answers these without DNS, as the machine's resolver does,
    # so a guide at https://2130706433/ is refused as the loopback address it is.
    assert numeric_address(host) == address
