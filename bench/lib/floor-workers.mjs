// The floor under a cold search in workerd (issue #40): two workers measured exactly as the tree's
// bundle is. `trivial` answers every POST with one fixed JSON-RPC body (workerd's own cost of a new
// isolate, a request and its answer); `imports` is the tree's bundle, compiled and evaluated, with
// its default export replaced by that same fixed answer (the bundle's module cost, none of its
// request path). What a cold search costs over `imports` is our request path.

const FIXED_ANSWER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [{ type: 'text', text: '{"results":[],"total":0}' }],
    structuredContent: { results: [], total: 0 },
  },
});

const FIXED_EXPORT = `{
  async fetch(request) {
    await request.text();
    return new Response(${JSON.stringify(FIXED_ANSWER)}, { headers: { 'content-type': 'application/json' } });
  },
}`;

export const trivialWorker = `export default ${FIXED_EXPORT};\n`;

/** The bundle's source with its default export answered by the fixed body (its module still evaluated). */
export function importOnlyWorker(bundleSource) {
  const exportStatement = /export\s*\{\s*([\w$]+) as default\s*\};?\s*$/;
  const match = exportStatement.exec(bundleSource);
  if (!match) throw new Error('importOnlyWorker: the bundle does not end with `export { x as default }`');
  // Keep the bundle's default reachable so nothing of it is dropped as dead.
  return `${bundleSource.slice(0, match.index)}globalThis.__bundleDefault = ${match[1]};\nexport default ${FIXED_EXPORT};\n`;
}
