"""Every finding code agentdex emits, with what it means.

This table is the single source of ``docs/findings.md`` (a test keeps them equal) and every
code a format module emits must be listed here (a test checks that too).
"""

CODES: dict[str, str] = {
    # whole-document problems
    "too_large": "The document is over its format's size limit.",
    "empty": "The document is empty.",
    "bom": "The document starts with a byte-order mark; JSON documents must not.",
    "encoding": "The document is not valid UTF-8.",
    "binary": "The document is binary data, not text.",
    "not_json": "The document is not JSON (the message gives the line and column).",
    "too_deep": "The document nests deeper than agentdex reads.",
    "non_finite": "The document holds NaN, Infinity or a number too large to be finite; JSON has none of these.",
    "number_too_long": "The document holds a number longer than agentdex reads (1,000 characters).",
    "duplicate_key": "A key is repeated in one JSON object; the message says which value counts (the last).",
    "not_object": "The document (or a value) must be a JSON object.",
    "unsupported_version": "The document declares a version of its format agentdex does not read.",
    "unknown_format": "The document is not any manifest format agentdex knows.",
    # field problems
    "required": "A required field is missing.",
    "type": "A value has the wrong JSON type.",
    "max_length": "A string or array is longer than its limit.",
    "min_length": "A string or array is shorter than its minimum.",
    "max_items": "An array has more items than allowed.",
    "min_items": "An array has fewer items than required.",
    "enum": "A value is not one of the allowed values.",
    "const": "A value must be exactly one fixed value.",
    "pattern": "A string does not have the required form.",
    "url": "A value is not an absolute URL of the required scheme.",
    "https": "A URL must use https.",
    "date": "A value is not an ISO 8601 date (YYYY-MM-DD).",
    "timestamp": "A value is not an RFC 3339 timestamp (2026-03-15T10:00:00Z).",
    "lowercase": "A value must be lower case.",
    "unique": "A value must be unique within its list.",
    "duplicate": "The same value appears more than once where it should not.",
    "unknown_key": "A key the format does not define (ignored; check for a typo).",
    "minimum": "A number is below its minimum.",
    "maximum": "A number is above its maximum.",
    "one_of_required": "At least one of several fields is required.",
    "leading_name": "The instructions must begin with the app's name.",
    "single_line": "A value must be one line (it contains a line break).",
    "contact": "A contact must be a mailto: address or a URL.",
    "spdx": "A license must be an SPDX license identifier.",
    "caip2": "A network must be a CAIP-2 chain id (namespace:reference).",
    "reverse_dns": "An id must be in reverse-DNS form (com.example/name).",
    "recommended": "A field the spec recommends is missing (a warning; the document stays valid).",
    "verify_domain": "An Anchor verify.dnsTxt names a domain other than the publisher's.",
    "well_known": "An Anchor verify.http URL is not at /.well-known/anchor.json, so the HTTP proof cannot hold.",
    # format-specific semantics
    "placeholder": "A {param} placeholder in a URL is not provided by the tool's input_schema.",
    "auth_ref": "An auth_ref names no declared credential slot.",
    "host_not_allowed": "A URL's host is not covered by its credential slot's allowed_hosts.",
    "no_audience": "A credential slot has no allowed_hosts (a secret without an audience).",
    "security_floor": "A mutating action marked readOnlyHint:true; the security floor overrides it.",
    "mandatory_guardrail": "A mandatory guardrail cannot be disabled.",
    "unknown_tool": "A name refers to a tool the manifest does not declare.",
    "conflict": "Two sources of the same manifest conflict; the one named wins.",
    "not_findagent": "A manifest.json without schema_version 1.1 is not a FindAgent manifest.",
    "unsupported_transport": "A transport this format does not support.",
    "missing_file": "A file the manifest refers to is not in the package.",
    "secret_value": "A package carries a secret value; secrets never travel in a package.",
    "credential_ref": "A credential_ref does not point at a real required_secrets entry.",
    "checksum": "The package checksum does not match its content.",
    "not_zip": "The input is not a ZIP archive.",
    "unsafe_path": "A package entry escapes the package (zip slip) or is otherwise unsafe.",
    "zip_bomb": "A package expands beyond the limits agentdex reads.",
    "frontmatter": "A SKILL.md has no readable YAML frontmatter.",
    "inferred": "The listing was inferred from bootstrap files; publish a real manifest.",
    "no_bootstrap": (
        "An origin has neither SKILL.md nor a guide (agent.md / llms.txt): nothing to infer a listing from."
    ),
    "no_mcp_url": "A mcp.json names no remote MCP server with an https URL (stdio servers cannot be listed).",
    "openapi": "An OpenAPI document is missing or is not OpenAPI 3.x.",
    "alias_conflict": "A field and its alias are both given with different values (the field's own name wins).",
    "ignored": "A value that has no effect where it is (it belongs to another kind or option); ignored.",
    "exclusive": "Two fields or settings that cannot be used together.",
    "no_manifest": "None of the files where the format keeps its manifest is present.",
    "reserved_kind": "A reserved kind with no distinct behaviour yet; it is read as another kind.",
    "email": "A value must be an email address.",
    "schema": "A value that must be a JSON Schema is not a valid one.",
    "schema_dropped": "A JSON Schema over a limit is left out rather than clipped.",
    "token_host": "A service-account key slot does not allow the token hosts it must reach first.",
    "requires_self": "An order rail makes a tool require itself, so it could never run.",
    "unknown_skill": "A name refers to a skill the manifest does not declare.",
    "name_mismatch": "A skill's name differs from the name of its folder.",
    "unsupported_runtime": "A runtime version the platform does not offer.",
    "secret_env": "An env entry looks like a secret; secrets belong in credential slots.",
    "zip_entry": "A package entry cannot be read (encrypted, an unsupported compression method, or corrupt).",
    "not_allowed": "A field that must be absent here (e.g. an adapp package's tools with transport openapi).",
    "mismatch": "Two values that must agree do not (e.g. a tool file's name and the manifest's tool name).",
    "unverified": "A check was skipped because only part of a package was given (e.g. a bare adapp manifest.json).",
    # discovery documents (A2A cards, MCP server cards, server.json, api-catalog, x402, ai-catalog)
    "not_a2a": (
        "A document at an A2A agent-card path is not an A2A agent card (the legacy agent.json name is "
        "shared with other protocols)."
    ),
    "media_type": "A value must be a media type (type/subtype), such as text/plain.",
    "draft_shape": (
        "A discovery document uses the keys of an earlier draft of its format; agentdex reads them and "
        "names the current spelling."
    ),
    "no_endpoint": "A discovery document names no endpoint to connect to.",
    "legacy_location": (
        "A discovery document was found at a location of an earlier draft (an MCP server card under "
        "/.well-known/mcp/); SEP-2127 lists cards in /.well-known/ai-catalog.json or serves them at "
        "<streamable-http-url>/server-card."
    ),
    "schema_mismatch": "A value matches none of the shapes its published JSON Schema allows.",
    "placeholder_value": "A value is an unfilled template placeholder (${VERSION}, {{APP_ID}}, YOUR_WALLET_ADDRESS).",
    "empty_catalog": "An API catalog (RFC 9727) names no API.",
    # cross-format consistency (formats/consistency.py): two sources state one fact differently
    "name_differs": "Two documents of one origin give it different names.",
    "a2a_endpoint_differs": "An origin's A2A 0.3 and 1.0 cards name no endpoint in common.",
    "skills_differ": "An origin's A2A 0.3 and 1.0 cards declare different skills.",
    "version_differs": "An origin's A2A 0.3 and 1.0 cards state different agent versions.",
    "mcp_endpoint_differs": "Two documents of one origin name MCP endpoints with none in common.",
    "api_base_differs": "Two documents of one origin name API bases with none in common.",
    "auth_differs": "Two documents of one origin describe auth with no method in common.",
    "publisher_differs": "Two documents of one origin name different publishers (name or URL host).",
    "contact_differs": "Two documents of one origin give different publisher contacts.",
    "tools_differ": "Two documents of one origin declare different MCP tool names.",
    "protocol_versions_differ": (
        "An MCP server card lists protocol revisions of which the live probe of its endpoint saw none "
        "(cards are advisory: the probe's answer stands)."
    ),
    "tool_not_listed": "A document declares an MCP tool the live server does not list.",
    "tool_not_declared": "The live MCP server lists a tool a document that declares tools does not name.",
    "price_differs": "Two sources (documents or the live 402) state different prices for one resource.",
    "x402_terms_differ": (
        "An x402 discovery document declares a payment term (network, asset, scheme, payee) no offer of the "
        "resource's live 402 shares."
    ),
    "payment_not_required": "A resource an x402 discovery document declares paid answered an unpaid request with 2xx.",
    "payment_not_asked": (
        "A resource an x402 discovery document declares paid did not answer an unpaid request with an x402 "
        "402 (another status, no answer, or a 402 without payment requirements)."
    ),
    # tool fingerprints (formats/tool_fingerprint.py)
    "tool_read_only_writes": (
        "A tool annotated readOnlyHint: true whose name, input schema or destructiveHint says it writes."
    ),
    "param": "An http_binding parameter does not match the tool's inputSchema or its path template.",
    # tool texts that carry instructions (formats/tool_safety.py): flagged, never acted on
    "tool_hidden_block": (
        "A tool text holds a tag-delimited block of orders for the model (<IMPORTANT>, <system>, an HTML comment)."
    ),
    "tool_override": "A tool text tells the model to ignore its instructions or to keep something from the user.",
    "tool_reads_local": "A tool text asks the model to read local files, keys, credentials or the conversation.",
    "tool_sends_elsewhere": "A tool text asks the model to send data to a URL or address.",
    "tool_invisible_text": (
        "A tool text holds invisible characters (bidi overrides, zero-width, tag, variation selector "
        "or other default-ignorable characters)."
    ),
    "tool_text_too_long": (
        "A tool text is longer than agentdex reads for instructions (65,536 characters); only its start "
        "was read, and it is stored whole."
    ),
}
