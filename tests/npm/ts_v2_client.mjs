// What the TypeScript SDK v2's own client (@modelcontextprotocol/client, pinned in
// package.json) lists from an MCP server, printed as JSON:
//
//   node ts_v2_client.mjs URL MODE     MODE: auto (server/discover first) | legacy
//
// {"era": "modern" | "legacy", "serverInfo": {...}, "tools": [...every page...]}
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, mode] = process.argv.slice(2);
const client = new Client({ name: 'agentdex-tests', version: '1' }, { versionNegotiation: { mode } });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor);
const era = client.getNegotiatedProtocolVersion?.() ?? null;
process.stdout.write(JSON.stringify({ version: era, serverInfo: client.getServerVersion() ?? null, tools }));
await client.close();
