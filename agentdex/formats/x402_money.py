"""Prices in x402 offers, in US dollars. Pure.

x402 states an amount in the asset's base units; agentdex turns it into dollars for the
dollar stablecoins it knows (USDC on the networks x402 facilitators support). Shared by the
live 402 reader (``crawler/x402.py``) and the ``/.well-known/x402`` discovery format.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

V1_NETWORKS = {
    "base": "eip155:8453", "base-sepolia": "eip155:84532", "ethereum": "eip155:1",
    "polygon": "eip155:137", "polygon-amoy": "eip155:80002", "avalanche": "eip155:43114",
    "avalanche-fuji": "eip155:43113", "solana": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    "solana-devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
}
# USDC contracts (6 decimals) on the networks x402 facilitators support.
USD_ASSETS = {
    "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913": 6,  # Base
    "0x036cbd53842c5426634e7929541ec2318f3dcf7e": 6,  # Base Sepolia
    "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48": 6,  # Ethereum
    "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359": 6,  # Polygon
    "0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e": 6,  # Avalanche
    "epjfwjd5wm8xqzjz3rq1xp1kyhc1ovghmxmvh3n6mn8v": 6,  # Solana (compared lower-case)
}


def usd_price(asset: str, amount: str, extra: Any = None) -> float | None:
    """``amount`` base units of ``asset`` in USD, for known dollar stablecoins."""
    decimals = USD_ASSETS.get(asset.lower())
    if decimals is None and isinstance(extra, dict) and str(extra.get("name", "")).upper() in ("USDC", "USD COIN"):
        decimals = int(extra.get("decimals", 6)) if str(extra.get("decimals", "6")).isdigit() else 6
    if decimals is None:
        return None
    try:
        return float(Decimal(amount) / (Decimal(10) ** decimals))
    except (InvalidOperation, ValueError):
        return None
