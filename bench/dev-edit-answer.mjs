// Benchmark (issue 39): a one-document edit in `staticmcp dev` over 300 Markdown pages, timed from
// saving the page to the first `search` answer that finds the new word (the client asks every
// 50 ms over stdio, as an agent would after an edit), and, for the same edit, to the first
// `resources/read` that shows it. Two projects: pages only (a content project, no tools/ folder),
// and the same pages beside an empty tools/ folder. With STATICMCP_CLI_BEFORE (another compiled
// CLI, e.g. main's) both CLIs run in this one run, one after the other, with the ratios.
// Run: npm run build && node bench/dev-edit-answer.mjs   (STATICMCP_CLI / STATICMCP_CLI_BEFORE)
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';

const PAGES = Number(process.env.PAGES ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** An edit not answered within this is reported as never answered. */
const GIVE_UP_MS = Number(process.env.GIVE_UP_MS ?? 30_000);
const POLL_MS = 50;
const WORDS = ['river', 'stone', 'lantern', 'harbour', 'meadow', 'copper', 'window', 'orchard', 'signal', 'bridge'];

function writePages(withToolsFolder) {
  const project = path.join(tempDir('staticmcp-bench-dev-edit-'), 'project');
  mkdirSync(path.join(project, 'resources', 'docs'), { recursive: true });
  if (withToolsFolder) mkdirSync(path.join(project, 'tools'));
  for (let page = 0; page < PAGES; page++) {
    const words = Array.from({ length: 400 }, (_, index) => WORDS[(page * 7 + index * 3) % WORDS.length]);
    writeFileSync(
      path.join(project, 'resources', 'docs', `page-${page}.md`),
      `# Page ${page}\n\n## Overview\n\n${words.join(' ')}.\n\n- item one\n- item two\n\n\`\`\`sh\necho page ${page}\n\`\`\`\n`,
    );
  }
  return project;
}

/** One `dev` process over stdio: requests, and the first answer that satisfies a check. */
function startDev(cli, project) {
  const child = spawn(process.execPath, [cli, 'dev', project], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let buffered = '';
  let nextId = 1;
  const pending = new Map();
  child.stderr.setEncoding('utf8').on('data', (text) => {
    stderr += text;
  });
  child.stdout.setEncoding('utf8').on('data', (text) => {
    buffered += text;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      if (message.id !== undefined && pending.has(message.id)) {
        pending.get(message.id)(message);
        pending.delete(message.id);
      }
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    request,
    stderr: () => stderr,
    async stop() {
      child.stdin.end();
      await new Promise((resolve) => child.on('exit', resolve));
    },
  };
}

async function until(check, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const textOf = (answer) => JSON.stringify(answer.result ?? answer.error ?? {});

async function measure(cli, withToolsFolder) {
  const project = writePages(withToolsFolder);
  const dev = startDev(cli, project);
  await dev.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  if (!(await until(() => dev.stderr().includes('watching for changes'), 300_000)))
    throw new Error(`dev did not start: ${dev.stderr()}`);
  let uri;
  for (let cursor; uri === undefined; ) {
    const listed = await dev.request('resources/list', cursor === undefined ? {} : { cursor });
    uri = listed.result.resources.find((resource) => resource.uri.endsWith('page-7.md'))?.uri;
    cursor = listed.result.nextCursor;
    if (uri === undefined && cursor === undefined) throw new Error('page-7.md is not listed');
  }
  const toSearchMs = [];
  const toReadMs = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const word = `quokka${round}x`;
    const savedAt = performance.now();
    writeFileSync(path.join(project, 'resources', 'docs', 'page-7.md'), `# Page 7\n\nA ${word} was seen here.\n`);
    let readAt;
    const found = await until(async () => {
      if (readAt === undefined && textOf(await dev.request('resources/read', { uri })).includes(word))
        readAt = performance.now();
      return /page-7/.test(textOf(await dev.request('tools/call', { name: 'search', arguments: { query: word } })));
    }, GIVE_UP_MS);
    toSearchMs.push(found ? performance.now() - savedAt : Number.POSITIVE_INFINITY);
    toReadMs.push(readAt === undefined ? Number.POSITIVE_INFINITY : readAt - savedAt);
    // The next edit after this one's rebuild has settled.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await dev.stop();
  return { search: median(toSearchMs), read: median(toReadMs), all: toSearchMs };
}

const show = (ms) => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : `never within ${GIVE_UP_MS / 1000} s`);
const clis = [
  ...(process.env.STATICMCP_CLI_BEFORE ? [['before', process.env.STATICMCP_CLI_BEFORE]] : []),
  ['this', cliPath],
];
console.log(`${PAGES} Markdown pages, ${ROUNDS} one-page edits each, medians (save → first answer with the new text)`);
const results = {};
for (const withToolsFolder of [false, true]) {
  for (const [name, cli] of clis) {
    const result = await measure(cli, withToolsFolder);
    results[`${name}-${withToolsFolder}`] = result;
    console.log(
      `${withToolsFolder ? 'pages + empty tools/' : 'pages only          '} ${name.padEnd(6)}: search ${show(result.search)}, resources/read ${show(result.read)}  [search: ${result.all.map(show).join(', ')}]`,
    );
  }
  const before = results[`before-${withToolsFolder}`];
  const after = results[`this-${withToolsFolder}`];
  if (before && Number.isFinite(before.search) && Number.isFinite(after.search))
    console.log(`  ratio this/before (search): ${(after.search / before.search).toFixed(2)}`);
}
