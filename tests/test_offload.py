"""offload.run: small crawled inputs are parsed on the event loop's thread, large ones and
anything a YAML loader could expand (an anchor) in a worker thread."""

from __future__ import annotations

import threading

import anyio

from agentdex.crawler import offload


def bomb() -> bytes:
    """Nine levels of nine aliases: 550 bytes that expand to 9**9 strings."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 10)]
    return ("\n".join(lines) + "\n").encode()


def _thread_of(size: int) -> threading.Thread:
    async def main() -> threading.Thread:
        return await offload.run(size, threading.current_thread)

    return anyio.run(main)


def test_small_input_is_parsed_inline_and_a_large_one_in_a_thread():
    assert _thread_of(offload.INLINE_BYTES) is threading.current_thread()
    assert _thread_of(offload.INLINE_BYTES + 1) is not threading.current_thread()


def test_a_tiny_yaml_alias_bomb_counts_as_large():
    body = bomb()
    assert len(body) < offload.INLINE_BYTES
    assert offload.yaml_size(body) > offload.INLINE_BYTES
    assert offload.yaml_size("name: x\n&a [1]") > offload.INLINE_BYTES


def test_yaml_size_adds_up_plain_inputs_and_skips_missing_ones():
    assert offload.yaml_size(b"openapi: 3.1.0\n", None, "# Agent\n") == 15 + 8
    assert offload.yaml_size() == 0


def test_data_size_counts_strings_and_nodes_and_stops_early_on_a_huge_value():
    assert offload.data_size(("get", "Get a thing", {"type": "object"})) == 3 + 11 + 1 + 4 + 6 + 1
    huge = {"properties": {f"p{i}": {"description": "x" * 1000} for i in range(100_000)}}
    assert offload.INLINE_BYTES < offload.data_size(huge) < 2 * offload.INLINE_BYTES
    deep: list = []
    for _ in range(10_000):  # nesting without a string is still work for the scan
        deep = [deep]
    assert offload.data_size(deep) > offload.INLINE_BYTES
