// Long documents (past utf8-scratch.ts's bound) are laid out in one shared buffer before they are
// digested, spooled or written: each file must still hold exactly its own text's UTF-8, and its
// recorded digest must be that of those bytes, whatever came through the buffer before it.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestFile } from '../../src/tree-writer/content-hash.js';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { readTree } from '../helpers/files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A long text of `units` UTF-16 units, ASCII or with two-, three- and four-byte characters. */
function longText(units: number, mixed: boolean): string {
  const piece = mixed ? 'é ü — 漢字 😀 ' : 'plain ascii text ';
  return `${piece.repeat(Math.ceil(units / piece.length))}`.slice(0, units).replace(/\uD83D$/, 'x');
}

// Longest first, so a later text shorter than the buffer's last contents would show a stale tail.
const texts = [
  longText(400_000, true),
  longText(300_000, false),
  longText(70_000, true),
  longText(20_000, true),
  longText(17_000, false),
];

describe('long texts through the tree writer', () => {
  it('are written and spooled as their own UTF-8, with the digest of those bytes', async () => {
    const out = path.join(await temporaryFolder('staticmcp-long-'), 'dist');
    const writer = await TreeWriter.open(out);
    await writer.write('mcp.json', '{}\n');
    for (const [index, text] of texts.entries()) {
      await writer.write(`resources/plain-${index}.json`, text);
      await writer.write(`resources/spooled-${index}.json`, text, { spool: true });
    }
    await writer.flush();
    for (const [index, text] of texts.entries())
      for (const name of [`resources/plain-${index}.json`, `resources/spooled-${index}.json`])
        expect(writer.digestOf(name)!.toString('hex')).toBe(sha256(Buffer.from(text)));
    await writer.commit();
    const files = await readTree(out);
    for (const [index, text] of texts.entries()) {
      expect(files.get(`resources/plain-${index}.json`)!.equals(Buffer.from(text))).toBe(true);
      expect(files.get(`resources/spooled-${index}.json`)!.equals(Buffer.from(text))).toBe(true);
    }
  });

  it('digest alike as a string and as its bytes', () => {
    for (const text of texts) expect(digestFile(text).equals(digestFile(Buffer.from(text)))).toBe(true);
  });
});
