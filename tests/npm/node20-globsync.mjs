// Node 20 for the MCP conformance kit 0.2.0-alpha.12 (package.json: conformance-2026).
//
//   node --import ./node20-globsync.mjs node_modules/conformance-2026/dist/index.js ...
//
// The kit imports fs.globSync (Node 22) at load time, for one thing only: collecting the
// checks.json files of a whole run (`**/checks.json`). This hook gives the kit, and only
// the kit, an 'fs' that is Node's own plus a globSync that refuses with a sentence; the
// scenarios the tests run never call it. Nothing of the kit itself is changed.
import { register } from 'node:module';

register('data:text/javascript,' + encodeURIComponent(`
const SHIM = 'data:text/javascript,' + encodeURIComponent(
  "export * from 'node:fs'; import fs from 'node:fs'; export default fs;" +
  "export function globSync() { throw new Error('fs.globSync needs Node 22; the tests never use it'); }");
export async function resolve(specifier, context, next) {
  const parent = context.parentURL || '';
  if ((specifier === 'fs' || specifier === 'node:fs') && parent.includes('/node_modules/conformance-2026/')) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
`));
