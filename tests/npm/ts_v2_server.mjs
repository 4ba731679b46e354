// An MCP server built with the TypeScript SDK v2 (@modelcontextprotocol/server, pinned in
// package.json), served over plain HTTP on 127.0.0.1 for the tests (tests/reference_servers.py
// puts the suite's TLS in front of it).
//
//   node ts_v2_server.mjs PORT reject    createMcpHandler(..., {legacy: 'reject'}): 2026-07-28 only
//   node ts_v2_server.mjs PORT default   the SDK's default: both eras on one endpoint
//   node ts_v2_server.mjs PORT split     both eras, one more tool in 2026-07-28 (the factory's ctx.era)
//
// The tools do nothing; a probe must never call one (a call is written to stderr).
import http from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';

const [port, mode] = process.argv.slice(2);

const TOOLS = [
  {
    name: 'search_catalogue',
    description: 'Search the catalogue by keyword.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Words to look for' }, limit: { type: 'integer' } },
      required: ['query'],
    },
  },
  {
    name: 'get_item',
    description: 'Return one item by its id.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  {
    name: 'delete_item',
    title: 'Delete an item',
    description: 'Delete an item by its id. This cannot be undone.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
];

const MODERN_ONLY = {
  name: 'export_report',
  description: 'Export a report (offered to 2026-07-28 clients only).',
  annotations: { readOnlyHint: true },
  inputSchema: { type: 'object', properties: {} },
};

function factory(ctx) {
  const server = new McpServer({ name: 'Example (TS SDK v2)', version: '1.0.0' }, { instructions: 'A test server.' });
  const tools = mode === 'split' && ctx?.era === 'modern' ? [...TOOLS, MODERN_ONLY] : TOOLS;
  for (const tool of tools) {
    const { name, inputSchema, ...config } = tool;
    server.registerTool(name, { ...config, inputSchema: fromJsonSchema(inputSchema) }, async () => {
      process.stderr.write(`tools/call ${name}\n`);
      return { content: [{ type: 'text', text: 'nothing done' }] };
    });
  }
  return server;
}

const handler = createMcpHandler(factory, mode === 'reject' ? { legacy: 'reject' } : {});

// node:http to the handler's web-standard fetch face.
http
  .createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
      body,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  })
  .listen(Number(port), '127.0.0.1');
