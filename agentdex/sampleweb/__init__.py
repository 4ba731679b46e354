"""The bundled sample web: origins as folders of files, served over real HTTPS on loopback.

Import what you need from the submodules, or these names from here (loaded on first use,
so importing the package stays cheap):

    SampleWeb, WEB_ROOT, UNSERVED_HOST, run_forever   (agentdex.sampleweb.server)
    SampleDNS                                          (agentdex.sampleweb.dns)
    SyntheticWeb, write_synthetic_tree                 (agentdex.sampleweb.synthetic)

Its third-party packages (an MCP SDK, a throwaway CA, a DNS server) are no part of a
catalogue: they come with the ``demo`` extra, and :func:`missing_extra` is what ``agentdex
demo`` and ``agentdex sampleweb`` say without it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SampleWeb": "server",
    "WEB_ROOT": "server",
    "UNSERVED_HOST": "server",
    "run_forever": "server",
    "SampleDNS": "dns",
    "SyntheticWeb": "synthetic",
    "write_synthetic_tree": "synthetic",
}
__all__ = sorted(_EXPORTS)

# The modules only the sample web imports; pyproject.toml's ``demo`` extra declares them
# (tests/test_import_hygiene.py keeps the two in step).
EXTRA_MODULES = ("mcp", "trustme", "dnslib", "httpx2", "httpcore2")
INSTALL_EXTRA = "pip install 'agentdex[demo]'"


def missing_extra() -> str | None:
    """One sentence telling how to install the sample web's packages when one of them does
    not import, or ``None`` when they all do."""
    for name in EXTRA_MODULES:
        try:
            import_module(name)
        except ImportError:
            return f"the sample web's packages are not installed ({name} is missing): {INSTALL_EXTRA}"
    return None


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f"agentdex.sampleweb.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'agentdex.sampleweb' has no attribute {name!r}")
