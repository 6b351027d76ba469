// The mcp.json of a hand-written tree with one precomputed tool, lookup(n) for a whole n ≥ 0,
// whose answers are the files tools/lookup/<n>.json: shared by the tests that serve such a tree.
export const LOOKUP_MANIFEST = {
  protocolVersion: '2025-11-25',
  serverInfo: { name: 'lookup', version: '1.0.0' },
  capabilities: {
    tools: [
      {
        name: 'lookup',
        inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
      },
    ],
    resources: [],
    prompts: [],
  },
  staticmcp: {
    profileVersion: 1,
    tools: { lookup: { parameterOrder: ['n'], enumerated: ['n'], live: false, script: 'tools/lookup' } },
  },
};
