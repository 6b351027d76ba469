// A precomputed call of a packed tree answered from its record's bytes without a promise
// (core/packs/lookup-now.ts, FolderPackFiles.readBytesNow keeping the pack open): once the pack's
// index is loaded, a call is cut from its record, the same line the serializer writes; a record
// damaged or cut short in place after its pack was kept open, and a record over the answer cap,
// go the whole way and answer as before; a new manifest (a rebuilt tree) closes the kept packs,
// so a pack replaced under the same name is read anew. In-process, over real tree folders.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonRpcText, stringifyJsonRpc } from '../../src/core/mcp/exact-ids.js';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import { ManifestPackedSource } from '../../src/core/packs/manifest-packed-source.js';
import { callFileText } from '../../src/core/tree/call-file-text.js';
import { readCallFile } from '../../src/core/tree/lenient-files.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { packToolRecords } from '../../src/tree-writer/pack-writer.js';
import { LOOKUP_MANIFEST } from '../helpers/lookup-manifest.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const CALLS = 40;
const encoder = new TextEncoder();
const fileTextOf = (n: number) =>
  callFileText({ content: [{ type: 'text', text: `value ${n} ${'é'.repeat(n % 7)}` }] }, { n });

/** A tree whose lookup(n) calls (n < CALLS) are all in one pack, served in-process. */
async function openPackedTree(answerLimits = {}) {
  const root = await temporaryFolder('staticmcp-packed-cut-');
  const packed = packToolRecords({
    tool: 'lookup',
    records: Array.from({ length: CALLS }, (_, n) => ({
      paths: [`tools/lookup/${n}.json`],
      bytes: encoder.encode(fileTextOf(n)),
    })),
    targetPackBytes: 1 << 20,
    targetIndexBytes: 1 << 20,
  });
  for (const file of packed.files) {
    await fs.mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
    await fs.writeFile(path.join(root, file.path), file.bytes);
  }
  const manifest = { ...LOOKUP_MANIFEST, staticmcp: { ...LOOKUP_MANIFEST.staticmcp, packs: { lookup: packed.table } } };
  await fs.writeFile(path.join(root, 'mcp.json'), JSON.stringify(manifest));
  const source = new ManifestPackedSource(new FolderSource(root, 'lookup'), new FolderPackFiles(root));
  const server = await createNodeServerContext({ source, logProblem: () => {} });
  const session = new McpSession(server, () => {}, { answerLimits });
  const ask = async (n: number) => {
    const line = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup","arguments":{"n":${n}}}}`;
    const response = (await session.handleParsed(parseJsonRpcText(line), () => {})) as Record<string, unknown>;
    const answered = stringifyJsonRpc(response);
    // Cut when the kept text, not the object, is what the transport writes.
    response.result = 'replaced';
    return { line: answered, cut: stringifyJsonRpc(response) === answered };
  };
  await session.handleParsed(
    parseJsonRpcText('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}'),
    () => {},
  );
  const [packFile] = packed.files.filter((file) => file.path.endsWith('.pack'));
  return { root, source, ask, packPath: path.join(root, packFile!.path), close: () => session.close(0, 1_000) };
}

const expectedLine = (n: number) =>
  `{"jsonrpc":"2.0","id":7,"result":${JSON.stringify(readCallFile(JSON.parse(fileTextOf(n))).result)}}`;

/** Where the record of call `n` lies in the pack: the bytes of its text, which the record holds as they are. */
async function offsetOfCall(packPath: string, n: number): Promise<number> {
  const bytes = await fs.readFile(packPath);
  const at = bytes.indexOf(Buffer.from(`"text":"value ${n} `));
  expect(at).toBeGreaterThan(0);
  return at;
}

describe('a call of a packed tree answered from its record', () => {
  it('cuts every call from its record once the index is loaded, the line the serializer writes', async () => {
    const tree = await openPackedTree();
    // The first call loads the index (the whole way); every later one is cut.
    expect(await tree.ask(0)).toEqual({ line: expectedLine(0), cut: false });
    for (let n = 1; n < CALLS; n += 1) expect(await tree.ask(n)).toEqual({ line: expectedLine(n), cut: true });
    const notPacked = await tree.ask(CALLS + 5);
    expect(notPacked.cut).toBe(false);
    expect(JSON.parse(notPacked.line).result.content[0].text).toMatch(/this call was not precomputed/);
    await tree.close();
  });

  it('answers a record damaged or cut short in place the whole way, naming the damage', async () => {
    const tree = await openPackedTree();
    await tree.ask(0);
    // Kept open now: the damage is written into the same file, not a new one.
    expect((await tree.ask(1)).cut).toBe(true);
    const offsets = await Promise.all(Array.from({ length: CALLS }, (_, n) => offsetOfCall(tree.packPath, n)));
    const handle = await fs.open(tree.packPath, 'r+');
    await handle.write(Buffer.from('X'), 0, 1, offsets[5]!);
    const damaged = await tree.ask(5);
    expect(damaged.cut).toBe(false);
    expect(JSON.parse(damaged.line).result.content[0].text).toMatch(
      /its precomputed answer cannot be read \(.*checksum does not match/,
    );
    // Cut short at the middle record: the records past it are gone, the ones before it intact.
    const cutAt = [...offsets].sort((a, b) => a - b)[CALLS / 2]!;
    await handle.truncate(cutAt);
    await handle.close();
    const after = [...offsets.keys()].filter((n) => offsets[n]! >= cutAt && n > 1);
    const before = [...offsets.keys()].filter((n) => offsets[n]! < cutAt - 200 && n > 1 && n !== 5);
    expect(after.length).toBeGreaterThan(2);
    expect(before.length).toBeGreaterThan(2);
    for (const n of after.slice(0, 3)) {
      const short = await tree.ask(n);
      expect(short.cut).toBe(false);
      expect(JSON.parse(short.line).result.content[0].text).toMatch(/its precomputed answer cannot be read/);
    }
    for (const n of before.slice(0, 3)) expect(await tree.ask(n)).toEqual({ line: expectedLine(n), cut: true });
    await tree.close();
  });

  it('reads a pack replaced under its name anew once a new manifest is read', async () => {
    const tree = await openPackedTree();
    await tree.ask(0);
    expect((await tree.ask(1)).cut).toBe(true);
    // A new file under the same name (a rename, as the tree writer replaces files), damaged.
    const bytes = await fs.readFile(tree.packPath);
    bytes[await offsetOfCall(tree.packPath, 8)] = 'X'.charCodeAt(0);
    await fs.writeFile(`${tree.packPath}.new`, bytes);
    await fs.rename(`${tree.packPath}.new`, tree.packPath);
    // What a tree switch does first: read mcp.json again (the same pack table here).
    expect((await tree.source.read('mcp.json')).status).toBe('ok');
    await tree.ask(0);
    const damaged = await tree.ask(8);
    expect(damaged.cut).toBe(false);
    expect(JSON.parse(damaged.line).result.content[0].text).toMatch(/checksum does not match/);
    expect(await tree.ask(9)).toEqual({ line: expectedLine(9), cut: true });
    await tree.close();
  });

  it('answers a record over the answer cap the whole way, refused', async () => {
    const tree = await openPackedTree({ maxAnswerBytes: 80 });
    await tree.ask(0);
    const answer = await tree.ask(6);
    expect(answer.cut).toBe(false);
    expect(JSON.parse(answer.line).error.message).toMatch(/^Answer too large/);
    await tree.close();
  });
});
