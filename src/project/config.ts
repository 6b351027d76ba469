// `staticmcp.json`, the optional project configuration: the one reader every command asks. It is
// validated strictly against staticmcp.schema.json (the schema editors get through "$schema"; a
// typo here would otherwise silently change what gets precomputed), and this module owns the
// defaults, so the build, serve, dev and check can never disagree about a value or a folder.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { compileValidator, type Validator, validatorOf } from '../shared/ajv-validator.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { enableNodeCompileCache } from '../shared/node-compile-cache.js';
import { readFailureReason, readRegularFile } from '../shared/read-regular-file.js';
import { findClosestName } from './closest-name.js';

/** Literal values, or a command (run in the project root) that prints one value per line. */
export type ValueListSpec = unknown[] | { command: string };

export interface ToolConfig {
  values?: Record<string, ValueListSpec>;
  precompute?: boolean;
  live?: boolean;
  timeoutSecs?: number;
}

export interface Limits {
  maxCallsPerTool: number;
  timeoutMs: number;
  helpTimeoutMs: number;
  maxOutputBytes: number;
  maxIntegerRange: number;
  maxManifestBytes: number;
  /** Bytes of results the build cache keeps from earlier builds. */
  maxCacheBytes: number;
  /** Live runs at once in `serve`; more wait their turn, the wait counting against their timeout. */
  liveConcurrency: number;
  /** How long the edge worker waits for the live origin's answer to one forwarded run. */
  originTimeoutMs: number;
  /** Call files a tree may hold before it needs packs (`0`: never pack); `build --max-call-files` wins. */
  maxCallFiles: number;
  /** The largest file of a skill the build publishes (docs/skills.md); a larger one is skipped, saying so. */
  maxSkillFileBytes: number;
  /** The largest front matter of a SKILL.md the build parses (docs/skills.md); a skill with more is refused. */
  maxSkillFrontMatterBytes: number;
  /** Bytes of each page of the `site` folder read for its document (the page is published whole). */
  maxPageBytes: number;
  /** Entries of the resource list kept inline in mcp.json; the rest go to list parts (core/tree/resource-list.ts). */
  resourcesInManifest: number;
  /** Entries per resource list part file. */
  resourcesPerListPart: number;
  /** Bytes of llms-full.txt; documents past it are left out of that file (docs/sites.md). */
  maxLlmsFullBytes: number;
}

/** What the edge worker and `serve --http` need to know about browsers that call `/mcp`. */
export interface HttpConfig {
  /** Origins, besides the site's own, allowed to call `/mcp` (`"*"` = any). */
  allowedOrigins?: string[];
}

export interface CacheConfig {
  /** Seconds: `ttlMs` of modern MCP answers from the tree and `max-age` in the tree's `_headers` (default 300). */
  ttlSeconds?: number;
}

/** `search`: which documents the search index holds (issue #25); `true` = `{resources: true}`. */
export interface SearchConfig {
  resources?: boolean;
  /** The documents' language: "en" (default) stems English words (Porter); others are not stemmed. */
  language?: string;
  /** false: no stemming, whatever the language. */
  stemming?: boolean;
  /** Tools whose precomputed call results are indexed; `title` a template over argument names. */
  tools?: Record<string, { title?: string }>;
}

/** `site`: a folder of HTML pages that become resources and are published as they are. */
export type SiteConfig = string | { folder: string; selector?: string };

export interface ProjectConfig {
  name?: string;
  version?: string;
  title?: string;
  description?: string;
  instructions?: string;
  out?: string;
  /** Where the tree is deployed (`https://example.pages.dev`): shown in index.html, written to server.json. */
  publicUrl?: string;
  /** The MCP Registry name for server.json (`com.example/weather`); derived from publicUrl when absent. */
  registryName?: string;
  /** The GitHub user or organisation publishing to the MCP Registry: server.json's name is `io.github.<owner>/<name>`. */
  githubOwner?: string;
  /** The MCP Registry's HTTP proof record, written to `/.well-known/mcp-registry-auth` (a custom domain's proof). */
  registryAuth?: string;
  http?: HttpConfig;
  /** Where the edge worker forwards what the tree cannot answer: `staticmcp serve --origin` on a container platform. */
  liveOrigin?: string;
  /** How long precomputed answers stay fresh for clients and CDNs. */
  cache?: CacheConfig;
  /** The search and fetch tools; absent or false: none. */
  search?: boolean | SearchConfig;
  /** A built website: its pages become resources, its files are published in the tree. */
  site?: SiteConfig;
  limits: Limits;
  tools: Record<string, ToolConfig>;
}

export const CONFIG_FILE = 'staticmcp.json';
/** The published schema, at the package root (beside package.json, in the package's "files"). */
export const CONFIG_SCHEMA_URL = new URL('../../staticmcp.schema.json', import.meta.url);
/** The output folder when staticmcp.json names none. */
export const DEFAULT_OUT = 'dist';
/**
 * Live scripts mostly wait (on the network, a database, a disk), so a few per core: two at once
 * made the hundredth of 100 concurrent one-second calls answer after 50 s.
 */
const DEFAULT_LIVE_CONCURRENCY = Math.max(8, 4 * availableParallelism());

interface SchemaNode {
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
}

let schema: SchemaNode | undefined;
let validator: Validator | undefined;
let limitDefaults: Limits | undefined;

/** Read on first use only: `serve` of a tree folder never needs it. */
function loadSchema(): SchemaNode {
  schema ??= JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as SchemaNode;
  return schema;
}

/**
 * The validator compiled ahead of time by `npm run build` (scripts/compile-validators.mjs),
 * beside this module in dist/: loading ajv and compiling the schema would cost `serve my-server`
 * more than Node's own start. CommonJS, and required: the bundled CLI starts without Node's ES
 * module loader, which an import() would set up for this one file. From src/ (unit tests) the
 * schema is compiled here, with the same options and the same messages.
 */
async function loadValidator(): Promise<Validator> {
  enableNodeCompileCache();
  try {
    const compiled = createRequire(import.meta.url)('./config-validator.cjs') as {
      default: Parameters<typeof validatorOf>[0];
    };
    return validatorOf(compiled.default, CONFIG_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return compileValidator(loadSchema(), CONFIG_FILE, { trusted: true });
  }
}

/**
 * An unknown-key problem with the closest key the schema accepts at that place, as unknown tool
 * keys already get (`"outt"` → did you mean "out"?). Keys under `tools` are tool names, checked elsewhere.
 */
function suggestKnownKey(problem: string): string {
  const unknown = /^staticmcp\.json((?:\.[^:]+)?): unknown field "(.*)"$/.exec(problem);
  if (!unknown) return problem;
  let node: SchemaNode | undefined = loadSchema();
  for (const segment of (unknown[1] ?? '').split('.').slice(1)) {
    const rest: SchemaNode | boolean | undefined = node?.additionalProperties;
    node = node?.properties?.[segment] ?? (typeof rest === 'object' ? rest : undefined);
  }
  const closest = findClosestName(unknown[2] ?? '', Object.keys(node?.properties ?? {}));
  return closest ? `${problem} (did you mean "${closest}"?)` : problem;
}

/** The limits a project gets for every key it does not set: the schema's `default`s, declared once there. */
export function defaultLimits(): Limits {
  limitDefaults ??= {
    maxCallsPerTool: schemaLimitDefault('maxCallsPerTool'),
    timeoutMs: schemaLimitDefault('timeoutMs'),
    helpTimeoutMs: schemaLimitDefault('helpTimeoutMs'),
    maxOutputBytes: schemaLimitDefault('maxOutputBytes'),
    maxIntegerRange: schemaLimitDefault('maxIntegerRange'),
    maxManifestBytes: schemaLimitDefault('maxManifestBytes'),
    maxCacheBytes: schemaLimitDefault('maxCacheBytes'),
    maxCallFiles: schemaLimitDefault('maxCallFiles'),
    originTimeoutMs: schemaLimitDefault('originTimeoutMs'),
    maxSkillFileBytes: schemaLimitDefault('maxSkillFileBytes'),
    maxSkillFrontMatterBytes: schemaLimitDefault('maxSkillFrontMatterBytes'),
    maxPageBytes: schemaLimitDefault('maxPageBytes'),
    resourcesInManifest: schemaLimitDefault('resourcesInManifest'),
    resourcesPerListPart: schemaLimitDefault('resourcesPerListPart'),
    maxLlmsFullBytes: schemaLimitDefault('maxLlmsFullBytes'),
    // Depends on the machine, so it cannot be a schema default.
    liveConcurrency: DEFAULT_LIVE_CONCURRENCY,
  };
  return { ...limitDefaults };
}

function schemaLimitDefault(key: keyof Limits): number {
  const value = loadSchema().properties?.limits?.properties?.[key]?.default;
  if (typeof value !== 'number')
    throw new Error(`${CONFIG_SCHEMA_URL.pathname} declares no number default for limits.${key}`);
  return value;
}

/** The configuration of a project without staticmcp.json. */
export function defaultConfig(): ProjectConfig {
  return { limits: defaultLimits(), tools: {} };
}

/** Remembers configuration texts that passed validation, so an unchanged one is not checked again. */
export interface ValidationMemory {
  isKnownValid(text: string): boolean;
  rememberValid(text: string): void;
}

/** The project's configuration, defaults applied; throws a StaticMcpError that says what to fix. */
export async function readConfig(projectRoot: string, memory?: ValidationMemory): Promise<ProjectConfig> {
  const file = path.join(projectRoot, CONFIG_FILE);
  let text: string;
  try {
    text = await readRegularFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return defaultConfig();
    throw new StaticMcpError(
      'CONFIG_UNREADABLE',
      `${CONFIG_FILE} cannot be read (${readFailureReason(error)})`,
      'Make it a regular, readable JSON file (or remove it).',
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new StaticMcpError(
      'CONFIG_INVALID',
      `${CONFIG_FILE} is not valid JSON: ${(error as Error).message}`,
      'Fix the JSON syntax (no comments or trailing commas).',
    );
  }
  if (!memory?.isKnownValid(text)) {
    validator ??= await loadValidator();
    const problems = validator(raw);
    if (problems.length > 0) {
      throw new StaticMcpError(
        'CONFIG_INVALID',
        `${CONFIG_FILE} is invalid: ${problems.map(suggestKnownKey).join('; ')}`,
        'See docs/project.md ("staticmcp.json") in the staticmcp repository for the accepted keys (staticmcp.schema.json in the package describes each one).',
      );
    }
    memory?.rememberValid(text);
  }
  const config = raw as Partial<ProjectConfig>;
  const originProblem = problemWithLiveOrigin(config.liveOrigin);
  if (originProblem)
    throw new StaticMcpError(
      'CONFIG_INVALID',
      `${CONFIG_FILE} is invalid: liveOrigin ${JSON.stringify(config.liveOrigin)} ${originProblem}`,
      'Give the https address of the live origin (staticmcp serve --origin), such as https://my-origin.example.run.app; plain http is accepted for 127.0.0.1, ::1 and localhost only (tests on this machine).',
    );
  return { ...config, limits: { ...defaultLimits(), ...config.limits }, tools: config.tools ?? {} };
}

/** Why a `liveOrigin` cannot be forwarded to, or undefined when it can (or is absent). */
function problemWithLiveOrigin(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    return 'has a path, query or credentials (give the scheme, host and port only)';
  if (url.protocol === 'https:') return undefined;
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol === 'http:' && loopback) return undefined;
  return url.protocol === 'http:'
    ? 'is plain http on a host that is not loopback: the signed requests and their answers would cross the network unencrypted'
    : `uses ${url.protocol}, not https`;
}

/**
 * For commands that must keep working when the file is broken (a `serve` or `dev` session whose
 * config is being edited): the defaults, and the reason they were used.
 */
export async function readConfigOrDefaults(projectRoot: string): Promise<{ config: ProjectConfig; problem?: string }> {
  try {
    return { config: await readConfig(projectRoot) };
  } catch (error) {
    if (!(error instanceof StaticMcpError)) throw error;
    return { config: defaultConfig(), problem: error.message };
  }
}

/** The tree's folder: `out` relative to the project, an absolute `out` as it is, else `<project>/dist`. */
export function resolveOutputFolder(projectRoot: string, config: Pick<ProjectConfig, 'out'>): string {
  return path.resolve(projectRoot, config.out ?? DEFAULT_OUT);
}

/** A `tools` key that names no tool, with what to do (the closest tool name, when one is close). */
export interface UnknownToolKey {
  key: string;
  message: string;
}

export function findUnknownToolKeys(config: ProjectConfig, toolNames: Iterable<string>): UnknownToolKey[] {
  const known = new Set(toolNames);
  return Object.keys(config.tools)
    .filter((key) => !known.has(key))
    .map((key) => {
      const closest = findClosestName(key, [...known]);
      return {
        key,
        message: `tools.${key} names no tool, so its settings apply to nothing; ${closest ? `did you mean "${closest}"?` : `the tools are ${[...known].sort().join(', ') || '(none)'}`} (keys are tool names, as tools/list shows them)`,
      };
    });
}
