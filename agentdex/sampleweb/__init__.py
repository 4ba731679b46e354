"""The bundled sample web: origins as folders of files, served over real HTTPS on loopback.

Import what you need from the submodules, or these names from here (loaded on first use,
so importing the package stays cheap):

    SampleWeb, WEB_ROOT, UNSERVED_HOST, run_forever   (agentdex.sampleweb.server)
    SampleDNS                                          (agentdex.sampleweb.dns)
    SyntheticWeb, write_synthetic_tree                 (agentdex.sampleweb.synthetic)
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SampleWeb": "server", "WEB_ROOT": "server", "UNSERVED_HOST": "server", "run_forever": "server",
    "SampleDNS": "dns",
    "SyntheticWeb": "synthetic", "write_synthetic_tree": "synthetic",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f"agentdex.sampleweb.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'agentdex.sampleweb' has no attribute {name!r}")
