"""A server of the MCP Python SDK (``mcp`` 2.3.0, ``mcp.server.MCPServer``) over Streamable
HTTP on 127.0.0.1 for the tests (tests/reference_servers.py puts the suite's TLS in front).

    python tests/py_mcp_server.py PORT HOST     (HOST: the name clients use; the SDK checks Host)

The SDK serves both eras on one endpoint: 2026-07-28 for a request whose
``MCP-Protocol-Version`` header names it, the ``initialize`` handshake otherwise. The tools
do nothing and are never called.
"""

from __future__ import annotations

import sys

import uvicorn
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations


def search_catalogue(query: str, limit: int = 10) -> str:
    """Search the catalogue by keyword."""
    return "nothing"


def delete_item(id: str) -> str:
    """Delete an item by its id. This cannot be undone."""
    return "nothing"


def main(port: int, host: str) -> None:
    server = MCPServer(name="Example (mcp 2.3.0)", version="1.0.0", log_level="WARNING")
    server.add_tool(search_catalogue, annotations=ToolAnnotations(read_only_hint=True))
    server.add_tool(delete_item, annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    security = TransportSecuritySettings(allowed_hosts=[host, "127.0.0.1:*"], allowed_origins=[f"https://{host}"])
    app = server.streamable_http_app(transport_security=security)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
