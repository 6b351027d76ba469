// Netlify as a user's project meets it, run by Deno (the runtime of Netlify's edge functions):
// the paths netlify.toml gives an edge function go to the project's
// deploy/netlify/edge-functions/<function>.js exactly as init wrote it; every other path is the
// publish folder served the way Netlify serves it (files, `_headers` rules joined per path,
// 404.html with status 404 for a miss). Started by host-runtimes.ts as
//   deno run --allow-net=127.0.0.1 --allow-read=<project> netlify-under-deno.mjs <project> <port>
// and prints "Ready on http://127.0.0.1:<port>" once it listens.
const [project, portText] = Deno.args;
const toml = await Deno.readTextFile(`${project}/netlify.toml`);
const publish = /^\s*publish\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? 'dist';
const functionsFolder = /^\s*edge_functions\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? 'netlify/edge-functions';
/** `[[edge_functions]]` tables: path → function name. */
const routes = new Map();
for (const table of toml.split('[[edge_functions]]').slice(1)) {
  const routePath = /^\s*path\s*=\s*"([^"]+)"/m.exec(table)?.[1];
  const name = /^\s*function\s*=\s*"([^"]+)"/m.exec(table)?.[1];
  if (routePath && name) routes.set(routePath, name);
}
const handlers = new Map();
for (const [routePath, name] of routes) {
  handlers.set(routePath, (await import(`file://${project}/${functionsFolder}/${name}.js`)).default);
}

const root = `${project}/${publish}`;
const TYPES = { '.json': 'application/json', '.html': 'text/html; charset=UTF-8', '.js': 'application/javascript' };

/** `_headers` as Netlify applies it: every matching rule's headers, values of one name joined. */
function headerRules(text) {
  const rules = [];
  let current;
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    if (!/^\s/.test(raw)) {
      const pattern = raw
        .trim()
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '.*');
      current = { pattern: new RegExp(`^${pattern}$`), headers: [] };
      rules.push(current);
      continue;
    }
    const at = raw.indexOf(':');
    if (current && at > 0) current.headers.push([raw.slice(0, at).trim(), raw.slice(at + 1).trim()]);
  }
  return rules;
}
const rules = headerRules(await Deno.readTextFile(`${root}/_headers`).catch(() => ''));

function withRules(pathname, headers) {
  const joined = new Headers(headers);
  const set = new Map();
  for (const rule of rules) {
    if (!rule.pattern.test(pathname)) continue;
    for (const [name, value] of rule.headers) {
      const key = name.toLowerCase();
      set.set(key, set.has(key) ? `${set.get(key)}, ${value}` : value);
    }
  }
  for (const [name, value] of set) joined.set(name, value);
  return joined;
}

async function serveStatic(pathname) {
  const relative = decodeURIComponent(pathname).replace(/^\/+/, '') || 'index.html';
  if (relative.split('/').some((segment) => segment === '..')) return new Response('bad path', { status: 400 });
  try {
    const body = await Deno.readFile(`${root}/${relative}`);
    const extension = relative.slice(relative.lastIndexOf('.'));
    return new Response(body, {
      headers: withRules(pathname, { 'content-type': TYPES[extension] ?? 'application/octet-stream' }),
    });
  } catch {
    const page = await Deno.readFile(`${root}/404.html`).catch(() => new TextEncoder().encode('Not Found'));
    return new Response(page, { status: 404, headers: withRules(pathname, { 'content-type': TYPES['.html'] }) });
  }
}

Deno.serve(
  {
    hostname: '127.0.0.1',
    port: Number(portText),
    onListen: () => console.log(`Ready on http://127.0.0.1:${portText}`),
  },
  (request) => {
    const { pathname } = new URL(request.url);
    const handler = handlers.get(pathname);
    // Netlify's Context: the edge function here only passes it on.
    const context = { next: () => serveStatic(pathname), waitUntil: () => {} };
    return handler ? handler(request, context) : serveStatic(pathname);
  },
);
