// What a shard build (`build --shard I/N`) writes instead of a whole tree: its own call files, its
// own documents' files (resources, site pages, template instances and skill files, split by their
// file path as calls are: shard-of-call.ts shardOfDocumentFile, a raw-name copy going with the file
// it copies), and, in shard 1 only, the files every shard computes alike (mcp.json and the resource
// list parts, index.html, prompts, completions, the deploy files, public/ copies), plus the record
// `staticmcp merge` reads (see tree-writer/shard-record.ts). Every shard still lists every document
// (the manifest's list, the list parts and the landing page need each one's entry) and digests every
// shared file and document into the project state that tells the merge whether all parts were built
// from the same project. No shard writes left-out-defaults copies: two calls claiming one copy path
// may fall in different shards, so the record lists the claims and the merge writes the copies a
// whole build writes.
import { createHash } from 'node:crypto';
import { isPackableResourceFile } from '../core/packs/pack-table.js';
import { canonicalJson } from '../core/tree/canonical-json.js';
import { createTreeHash, digestFile, sortTreePaths } from '../tree-writer/content-hash.js';
import { EXTENSION_KEY, type Manifest, MANIFEST_FILE } from '../core/tree/manifest.js';
import { SHARD_FORMAT, SHARD_RECORD_FILE, type ShardRecord } from '../tree-writer/shard-record.js';
import type { TreeWriter } from '../tree-writer/tree-writer.js';
import { HEADERS_FILE } from '../tree-writer/deploy-files.js';
import { LANDING_PAGE_FILE } from '../tree-writer/tree-ownership.js';
import type { BuildProblem, ToolReport } from './build-report.js';
import type { ToolPlan } from './plan-tools.js';
import { type ShardSpec, shardOfDocumentFile } from './shard-of-call.js';
import { TreeOutput } from './tree-output.js';

export const INDEX_FILE = 'index.html';
/** Shared files the build reads back after writing them (site-step.ts), small ones: every shard keeps them. */
const READ_BACK = new Set([INDEX_FILE, HEADERS_FILE]);

export interface ShardRecordInput {
  generator: string;
  /** The whole plans (not narrowed to the shard): every shard hashes the same ones. */
  plans: readonly ToolPlan[];
  manifest: Manifest;
  /** staticmcp.json's publicUrl without trailing slashes: the merge renders index.html with it. */
  publicUrl?: string;
  /** The left-out-defaults copies this shard's calls claim (CallFileSink.claimedCopies). */
  copies: [string, string | null][];
  /** The call-file budget the whole build would use; the merge packs at it. */
  maxCallFiles: number;
  /** What the whole tree's search index holds (null: no index); the merge indexes with it. */
  search: ShardRecord['search'];
  /** limits.maxLlmsFullBytes: the merge writes llms-full.txt with it. */
  maxLlmsFullBytes: number;
  report: { ok: boolean; tools: ToolReport[]; failures: BuildProblem[]; warnings: BuildProblem[] };
}

/**
 * The manifest without what depends on the shard (its call counts and the content hash over its
 * files), so equal projects give equal text on every machine.
 */
function shardIndependentManifest(manifest: Manifest): Manifest {
  const extension = manifest[EXTENSION_KEY];
  if (!extension) return manifest;
  const tools = Object.fromEntries(
    Object.entries(extension.tools).map(([name, tool]) => [name, { ...tool, precomputed: 0 }]),
  );
  return { ...manifest, [EXTENSION_KEY]: { ...extension, contentHash: '', tools } };
}

/** A tool's argument sets, hashed as they are generated (value lists can be long). */
function digestArgumentSets(plan: ToolPlan): string {
  const hash = createHash('sha256');
  if (plan.enumeration.precomputable)
    for (const args of plan.enumeration.argumentSets()) hash.update(`${canonicalJson(args)}\n`);
  return hash.digest('hex');
}

/**
 * The tree output of a shard build. Once the calls are in (`endCalls`), every file written is
 * digested on every shard; a document's file is written into its own shard's part, any other file
 * into shard 1's.
 */
export class ShardOutput extends TreeOutput {
  /** Shared file path → sha256 of its content, whether this shard writes it or not. */
  private readonly shared = new Map<string, Buffer>();
  /** The bytes of the READ_BACK files this part leaves to shard 1. */
  private readonly heldBack = new Map<string, Buffer>();
  private callsDone = false;

  constructor(
    writer: TreeWriter,
    readonly shard: ShardSpec,
  ) {
    super(writer);
  }

  endCalls(): void {
    this.callsDone = true;
  }

  override async write(filePath: string, content: string | Buffer): Promise<void> {
    if (this.callsDone) {
      this.shared.set(filePath, digestFile(content));
      if (this.ownerOf(filePath) !== this.shard.index) {
        if (READ_BACK.has(filePath)) this.heldBack.set(filePath, Buffer.from(content));
        return;
      }
    }
    await super.write(filePath, content);
  }

  override read(filePath: string): Buffer {
    return this.heldBack.get(filePath) ?? super.read(filePath);
  }

  /** The shard whose part holds a file written after the calls. */
  private ownerOf(filePath: string): number {
    return isPackableResourceFile(filePath) ? shardOfDocumentFile(filePath, this.shard.count) : 1;
  }

  override has(filePath: string): boolean {
    return this.shared.has(filePath) || super.has(filePath);
  }

  override async copy(fromPath: string, toPath: string): Promise<void> {
    if (!this.callsDone) return super.copy(fromPath, toPath);
    // A copy goes where its original went (a raw resource name with its document); elsewhere it is
    // only digested, as the original was.
    const original = this.shared.get(fromPath);
    if (original !== undefined) this.shared.set(toPath, original);
    if (super.has(fromPath)) await super.write(toPath, this.writer.read(fromPath));
  }

  override async copySlot(fromSlot: number, toPath: string): Promise<void> {
    // By its path: a copy goes where its original went, as copy decides.
    await this.copy(this.writer.written.at(fromSlot), toPath);
  }

  /** Everything a shard computes that must be equal on every machine building the same project state. */
  private hashProjectState(input: ShardRecordInput): string {
    const hash = createTreeHash();
    hash.add('format', String(SHARD_FORMAT));
    hash.add('generator', input.generator);
    hash.add(MANIFEST_FILE, canonicalJson(shardIndependentManifest(input.manifest)));
    for (const plan of input.plans) {
      // The run seed covers the script, its --help, inputs and limits; the argument sets cover value lists.
      hash.add(`plan:${plan.name}`, plan.runSeed);
      hash.add(`calls:${plan.name}`, digestArgumentSets(plan));
    }
    // The landing page names the tools no shard precomputed, so it depends on the shard: the merge
    // renders it (at index.html, or at LANDING_PAGE_FILE beside a built site's own index.html).
    for (const filePath of sortTreePaths(this.shared.keys())) {
      const digest = this.shared.get(filePath);
      if (
        digest !== undefined &&
        filePath !== MANIFEST_FILE &&
        filePath !== INDEX_FILE &&
        filePath !== LANDING_PAGE_FILE
      )
        hash.addDigest(filePath, digest);
    }
    hash.add('publicUrl', input.publicUrl ?? '');
    hash.add('maxLlmsFullBytes', String(input.maxLlmsFullBytes));
    return hash.digest();
  }

  /** Writes the part's record, last: the count and hash of every file written before it. */
  async writeRecord(input: ShardRecordInput): Promise<void> {
    const { shard } = this;
    const filesHash = await this.writer.hashWritten();
    const record: ShardRecord = {
      staticmcpShard: SHARD_FORMAT,
      index: shard.index,
      count: shard.count,
      generator: input.generator,
      projectState: this.hashProjectState(input),
      ...(input.publicUrl !== undefined ? { publicUrl: input.publicUrl } : {}),
      filesHash,
      files: this.writer.fileCount(),
      precomputed: Object.fromEntries(input.report.tools.map((tool) => [tool.name, tool.precomputed])),
      copies: input.copies,
      maxCallFiles: input.maxCallFiles,
      search: input.search,
      maxLlmsFullBytes: input.maxLlmsFullBytes,
      report: input.report,
    };
    await this.writer.write(SHARD_RECORD_FILE, `${JSON.stringify(record, null, 2)}\n`);
  }
}
