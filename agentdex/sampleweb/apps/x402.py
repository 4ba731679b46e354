"""A paid endpoint speaking x402: every unpaid request gets ``402 Payment Required``.

The answer carries the payment requirements in both forms in use:
- x402 v1: a JSON body ``{"x402Version": 1, "error", "accepts": [{scheme, network: "base",
  maxAmountRequired, asset, payTo, resource, description, mimeType, maxTimeoutSeconds}]}``;
- x402 v2: a ``PAYMENT-REQUIRED`` header holding base64 JSON ``{"x402Version": 2, "error",
  "resource": {url, description, mimeType}, "accepts": [{scheme, network: "eip155:8453",
  amount, asset, payTo, maxTimeoutSeconds, extra}]}``.

The sample web never settles anything: a request carrying ``X-PAYMENT`` (v1) or
``PAYMENT-SIGNATURE`` (v2) gets a 402 saying so. agentdex must never pay.

Options: ``price_usd`` (default 0.01), ``pay_to``, ``asset`` (USDC on Base), ``network_v1``
(base), ``network`` (eip155:8453), ``description``, ``mime_type``, ``max_timeout_seconds``,
``resource`` (default the request URL).
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

from agentdex.sampleweb.apps import AppContext, MountedApp
from agentdex.sampleweb.responses import Receive, Scope, Send, header, send_json

USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
SAMPLE_PAY_TO = "0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c"
USDC_DECIMALS = 6


def atomic_amount(price_usd: float | str) -> str:
    """A USD price as USDC atomic units (6 decimals): 0.01 -> "10000"."""
    return str(int((Decimal(str(price_usd)) * 10**USDC_DECIMALS).to_integral_value()))


def requirements(ctx: AppContext, url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The v1 body and the v2 header document for one request URL."""
    o = ctx.options
    amount = atomic_amount(o.get("price_usd", 0.01))
    resource = o.get("resource", url)
    description = o.get("description", "One call to this paid sample endpoint.")
    mime = o.get("mime_type", "application/json")
    common = {
        "scheme": "exact",
        "asset": o.get("asset", USDC_BASE),
        "payTo": o.get("pay_to", SAMPLE_PAY_TO),
        "maxTimeoutSeconds": int(o.get("max_timeout_seconds", 60)),
    }
    extra = {"name": "USD Coin", "version": "2"}
    v1 = {
        "x402Version": 1,
        "error": "X-PAYMENT header is required",
        "accepts": [
            {
                **common,
                "network": o.get("network_v1", "base"),
                "maxAmountRequired": amount,
                "resource": resource,
                "description": description,
                "mimeType": mime,
                "extra": extra,
            }
        ],
    }
    v2 = {
        "x402Version": 2,
        "error": "PAYMENT-SIGNATURE header is required",
        "resource": {"url": resource, "description": description, "mimeType": mime},
        "accepts": [{**common, "network": o.get("network", "eip155:8453"), "amount": amount, "extra": extra}],
    }
    return v1, v2


def encode_header(doc: dict[str, Any]) -> str:
    """A JSON document as the base64 value of an x402 v2 header."""
    return base64.b64encode(json.dumps(doc, separators=(",", ":")).encode("utf-8")).decode("ascii")


def build(ctx: AppContext) -> MountedApp:
    """The ``x402`` app."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        url = f"https://{ctx.host}{scope['path']}"
        v1, v2 = requirements(ctx, url)
        if header(scope, "x-payment") or header(scope, "payment-signature"):
            v1["error"] = v2["error"] = "The sample web never settles payments."
        await send_json(
            send, 402, v1, {"PAYMENT-REQUIRED": encode_header(v2), "Access-Control-Expose-Headers": "PAYMENT-REQUIRED"}
        )

    return MountedApp(app=app)
