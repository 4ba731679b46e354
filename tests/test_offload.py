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
