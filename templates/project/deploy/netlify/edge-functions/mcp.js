// Netlify: the tree's own worker answers MCP at /mcp as an edge function (netlify.toml routes it);
// every other path is Netlify's static hosting of dist/. There is no asset binding on Netlify, so
// the worker reads the tree with a fetch of the site itself. Delete this folder and netlify.toml
// if you do not deploy to Netlify.
import worker from '../../../dist/_worker.js';

// STATICMCP_ORIGIN_KEY (Site configuration → Environment variables, scoped to functions) signs
// the calls the worker forwards to a live origin, when staticmcp.json names one (liveOrigin).
export default (request, context) =>
  worker.fetch(request, { STATICMCP_ORIGIN_KEY: globalThis.Netlify?.env.get('STATICMCP_ORIGIN_KEY') }, context);
