"""The TDQS *score* of a tool list, through a model endpoint the user names (``agentdex tools
score``). The only module of agentdex that calls a model, and only when asked.

The rubric (six dimensions a tool, four for the set, judged by a model) is run by the reference
implementation itself, ``tdqs`` (PyPI, Apache-2.0; the ``quality`` extra), so a score here is the
score ``tdqs score`` gives with the same model: its prompts, its output contract, its retries
and its integer rollup. The lint (:mod:`agentdex.formats.tool_quality`) needs none of this.

    score_tools(definitions, server_name=, endpoint=, model=, api_key=) -> dict   the report
    ScoringError                                   why scoring could not run (one sentence)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

EXTRA = "quality"  # pip install 'agentdex[quality]'


class ScoringError(Exception):
    """Scoring could not run: tdqs is not installed, the tools were refused, or the model failed."""


def score_tools(
    definitions: Sequence[dict[str, Any]],
    *,
    server_name: str,
    endpoint: str,
    model: str,
    api_key: str,
    timeout: float = 120.0,
) -> dict[str, Any]:
    """``tdqs score`` of ``definitions`` with ``model`` at ``endpoint`` (an OpenAI-compatible
    base URL): the report in the specification's JSON (``tools[]`` with ``tdqs`` and ``tier``,
    ``serverScore`` with ``overallTier``, ``specVersion``, ``model``).

    :raises ScoringError: tdqs is missing, it refuses the tools, or the model call fails
    """
    try:
        import tdqs
    except ImportError as exc:
        raise ScoringError(f"scoring runs the reference rubric, tdqs: pip install 'agentdex[{EXTRA}]'") from exc
    try:
        parsed = tdqs.parse_tool_definitions(list(definitions))
        llm = tdqs.create_llm_client(
            api_key=api_key, base_url=endpoint, model=model, request_timeout_ms=int(timeout * 1000)
        )
        report = tdqs.score_server(llm=llm, server_name=server_name, tools=parsed.tools, concurrency=2)
    except (tdqs.TdqsInputError, tdqs.TdqsLlmError, ValueError) as exc:
        raise ScoringError(str(exc)) from exc
    return report.model_dump(mode="json")
