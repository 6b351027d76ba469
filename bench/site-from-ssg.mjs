// A real static site generator's output as a project's source (issue #39, "a built HTML site"):
// Eleventy (installed once into bench/.work/eleventy, never a dependency of the project) builds
// a few hundred Markdown pages taken from node_modules' READMEs into HTML with a layout that has the
// chrome a docs theme has (header, nav, sidebar, footer, scripts, an inline SVG icon, a canonical
// link), then `staticmcp build --site _site` and Pagefind's `--site` index the same folder, each as a
// child process timed in the same run. Prints both, their ratio, the tree's files, and for three
// pages what the extraction kept and dropped (the chrome's marker words must be absent, the body's
// first words present).
// Run: npm run build && node bench/site-from-ssg.mjs   (PAGES=300; ELEVENTY=3.1.2 picks the version;
// KEEP_SITE=/tmp/site keeps the HTML)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot, tempDir } from './lib/common.mjs';

const PAGES = Number(process.env.PAGES ?? 300);
const ELEVENTY = process.env.ELEVENTY ?? '3.1.2';
const CHROME_WORDS = ['HEADERMARK', 'NAVMARK', 'SIDEBARMARK', 'FOOTERMARK', 'SCRIPTMARK', 'SVGMARK'];

function installEleventy() {
  const folder = path.join(repoRoot, 'bench', '.work', `eleventy-${ELEVENTY}`);
  const bin = path.join(folder, 'node_modules', '.bin', 'eleventy');
  if (existsSync(bin)) return bin;
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), '{"private":true}\n');
  const installed = spawnSync('npm', ['install', `@11ty/eleventy@${ELEVENTY}`, '--no-audit', '--no-fund'], {
    cwd: folder,
    stdio: 'inherit',
  });
  if (installed.status !== 0) throw new Error(`npm install @11ty/eleventy@${ELEVENTY} failed`);
  return bin;
}

/** Up to `count` README.md files of node_modules, longest first past 2 KB: real, varied prose. */
function readmes(count) {
  const found = [];
  const walk = (folder, depth) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && depth < 3 && entry.name !== '.bin') walk(full, depth + 1);
      else if (/^readme\.md$/i.test(entry.name) && statSync(full).size > 2048) found.push(full);
    }
  };
  walk(path.join(repoRoot, 'node_modules'), 0);
  return found.sort().slice(0, count);
}

function writeSiteSource(root, files) {
  const source = path.join(root, 'src');
  mkdirSync(path.join(source, '_includes'), { recursive: true });
  writeFileSync(
    path.join(source, '_includes', 'base.njk'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ title }} | Bench Docs</title>
<link rel="canonical" href="https://docs.example.org{{ page.url }}">
<script>window.SCRIPTMARK = 1;</script><style>.x{color:red}</style></head>
<body><header><a href="/">HEADERMARK Bench Docs</a><svg><title>SVGMARK</title><path d="M0 0h1"/></svg></header>
<nav><ul>{% for item in collections.all | head(20) %}<li><a href="{{ item.url }}">NAVMARK {{ item.data.title }}</a></li>{% endfor %}</ul></nav>
<aside>SIDEBARMARK On this page</aside>
<main><h1>{{ title }}</h1>{{ content | safe }}</main>
<footer>FOOTERMARK © Bench</footer></body></html>
`,
  );
  writeFileSync(
    path.join(source, '_includes', 'head.js'),
    'module.exports = (array, n) => (n < 0 ? array.slice(n) : array.slice(0, n));\n',
  );
  writeFileSync(
    path.join(root, 'eleventy.config.cjs'),
    `module.exports = (config) => {
  config.addFilter('head', require('./src/_includes/head.js'));
  return { dir: { input: 'src', output: '_site' }, markdownTemplateEngine: false };
};
`,
  );
  const pages = [];
  files.forEach((file, number) => {
    const name = `${path.basename(path.dirname(file)).replace(/[^a-z0-9-]/gi, '-')}-${number}`;
    const text = readFileSync(file, 'utf8').replace(/\{[{%]|[%}]\}/g, ' ');
    const title =
      /^#\s+(.+)$/m
        .exec(text)?.[1]
        .replace(/[<>"[\]]/g, '')
        .slice(0, 80) || name;
    mkdirSync(path.join(source, 'docs'), { recursive: true });
    writeFileSync(
      path.join(source, 'docs', `${name}.md`),
      `---\nlayout: base.njk\ntitle: ${JSON.stringify(title)}\n---\n${text}\n`,
    );
    pages.push({ name, title, text });
  });
  return pages;
}

/** Wall and CPU (user+sys, children included) of a command, via GNU time's format. */
function timed(command, args, cwd) {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', command, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const last = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr.slice(-2000)}`);
  return { wallS: last[0], cpuS: last[1] + last[2], peakMiB: last[3] / 1024, stderr: result.stderr };
}

/** resources/read over the built tree, through the same core and readers `serve <folder>` uses. */
async function treeResourceReader(tree) {
  const dist = (file) => import(path.join(repoRoot, 'dist', file));
  const { FolderSource } = await dist('hosts/node/folder-source.js');
  const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
  const { ManifestPackedSource } = await dist('core/packs/manifest-packed-source.js');
  const { createNodeServerContext } = await dist('hosts/node/node-server-context.js');
  const { McpSession } = await dist('core/mcp/mcp-session.js');
  const packs = new FolderPackFiles(tree);
  const server = await createNodeServerContext({
    source: new ManifestPackedSource(new FolderSource(tree, 'tree'), packs),
    packFiles: packs,
    logProblem: () => {},
  });
  const session = new McpSession(server, () => {});
  let id = 0;
  const ask = (method, params) => session.handleParsed({ jsonrpc: '2.0', id: ++id, method, params }, () => {});
  await ask('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  return async (uri) => {
    const answer = await ask('resources/read', { uri });
    if (!answer?.result) throw new Error(`resources/read ${uri}: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer.result.contents[0].text;
  };
}

const eleventy = installEleventy();
const root = tempDir('site-from-ssg-');
const pages = writeSiteSource(root, readmes(PAGES));
const generated = timed(eleventy, ['--config=eleventy.config.cjs', '--quiet'], root);
const htmlFiles = readdirSync(path.join(root, '_site'), { recursive: true }).filter((name) => name.endsWith('.html'));
// KEEP_SITE=<folder> keeps the generated site there (to profile a build of it).
if (process.env.KEEP_SITE) cpSync(path.join(root, '_site'), process.env.KEEP_SITE, { recursive: true });
console.log(
  `Eleventy ${ELEVENTY}: ${pages.length} Markdown pages -> ${htmlFiles.length} HTML files in ${generated.wallS} s`,
);

const ours = timed('node', [cliPath, 'build', '--site', '_site', '--out', 'tree'], root);
const pagefindBin = path.join(repoRoot, 'node_modules', '.bin', 'pagefind');
const theirs = timed(pagefindBin, ['--site', '_site', '--output-path', 'pagefind-out'], root);
const row = (label, figures) =>
  `${label.padEnd(22)} wall ${figures.wallS.toFixed(2).padStart(6)} s  cpu ${figures.cpuS.toFixed(2).padStart(6)} s  peak ${figures.peakMiB.toFixed(0).padStart(4)} MiB`;
console.log(row('staticmcp build --site', ours));
console.log(row('pagefind --site', theirs));
console.log(
  `ratio (ours / pagefind): cpu ${(ours.cpuS / theirs.cpuS).toFixed(2)}x  wall ${(ours.wallS / theirs.wallS).toFixed(2)}x`,
);

const tree = path.join(root, 'tree');
const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
const treeFiles = readdirSync(tree, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
const listed = manifest.staticmcp?.resourceList?.total ?? manifest.resources?.length ?? 0;
console.log(
  `tree: ${treeFiles.length} files, ${listed} resources listed, mcp.json ${statSync(path.join(tree, 'mcp.json')).size} B`,
);

// Three pages: the first, the middle and the last, as a client's resources/read would see them.
const resourceText = await treeResourceReader(tree);
for (const page of [pages[0], pages[Math.floor(pages.length / 2)], pages.at(-1)]) {
  const relative = `docs/${page.name}/index.html`;
  const html = readFileSync(path.join(root, '_site', relative), 'utf8');
  const text = await resourceText(`https://docs.example.org/docs/${page.name}/`);
  const kept = CHROME_WORDS.filter((word) => text.includes(word));
  const firstHeading = /^#{1,6} .+$/m.exec(text)?.[0] ?? '(none)';
  console.log(`\n${relative}: HTML ${html.length} B -> text ${text.length} B`);
  console.log(
    `  chrome kept: ${kept.length ? kept.join(', ') : 'none'} (dropped: ${CHROME_WORDS.filter((w) => !kept.includes(w)).join(', ')})`,
  );
  console.log(`  first heading: ${firstHeading.slice(0, 100)}`);
  console.log(
    `  code fences: ${(text.match(/^```/gm) ?? []).length / 2}, list items: ${(text.match(/^- /gm) ?? []).length}, table rows: ${(text.match(/ \| /g) ?? []).length}`,
  );
  console.log(`  opens: ${JSON.stringify(text.slice(0, 160))}`);
}
