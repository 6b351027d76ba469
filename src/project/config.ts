// `staticmcp.json`: the optional project configuration, validated strictly (a typo here would
// otherwise silently change what gets precomputed).
import path from 'node:path';
import { compileValidator } from '../tree/json-validator.js';
import { StaticMcpError } from '../staticmcp-error.js';
import { readFailureReason, readRegularFile } from '../read-regular-file.js';
import { MAX_CACHE_TTL_SECONDS } from '../tree/manifest.js';

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
  /** Size of the build cache (.staticmcp/) above which results no build used lately are evicted. */
  maxCacheBytes: number;
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
  http?: HttpConfig;
  /** How long precomputed answers stay fresh for clients and CDNs. */
  cache?: CacheConfig;
  limits: Limits;
  tools: Record<string, ToolConfig>;
}

export const CONFIG_FILE = 'staticmcp.json';

export const DEFAULT_LIMITS: Limits = {
  maxCallsPerTool: 10_000,
  timeoutMs: 30_000,
  helpTimeoutMs: 10_000,
  maxOutputBytes: 10 * 1024 * 1024,
  maxIntegerRange: 1_000,
  maxManifestBytes: 10 * 1024 * 1024,
  maxCacheBytes: 512 * 1024 * 1024,
};

const valueListSchema = {
  oneOf: [
    { type: 'array' },
    {
      type: 'object',
      required: ['command'],
      additionalProperties: false,
      properties: { command: { type: 'string', minLength: 1 } },
    },
  ],
};

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    version: { type: 'string', minLength: 1 },
    title: { type: 'string' },
    description: { type: 'string' },
    instructions: { type: 'string' },
    out: { type: 'string', minLength: 1 },
    // An http(s) address without query or fragment; a trailing slash is dropped when it is used.
    publicUrl: { type: 'string', pattern: '^https?://[^/?#\\s]+(/[^?#\\s]*)?$' },
    registryName: { type: 'string', maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
    http: {
      type: 'object',
      additionalProperties: false,
      properties: {
        // Origins as browsers send them: scheme://host[:port], no path or trailing slash.
        allowedOrigins: {
          type: 'array',
          items: { type: 'string', pattern: '^(\\*|[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#\\s]+)$' },
        },
      },
    },
    cache: {
      type: 'object',
      additionalProperties: false,
      // At most a year: what HTTP caches are expected to honour as a max-age.
      properties: { ttlSeconds: { type: 'integer', minimum: 0, maximum: MAX_CACHE_TTL_SECONDS } },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxCallsPerTool: { type: 'integer', minimum: 0 },
        timeoutMs: { type: 'integer', minimum: 1 },
        helpTimeoutMs: { type: 'integer', minimum: 1 },
        maxOutputBytes: { type: 'integer', minimum: 1 },
        maxIntegerRange: { type: 'integer', minimum: 0 },
        maxManifestBytes: { type: 'integer', minimum: 1024 },
        maxCacheBytes: { type: 'integer', minimum: 0 },
        // Read by serve's live runner (serve/live/project-limits.ts); the build runs nothing live.
        liveConcurrency: { type: 'integer', minimum: 1 },
      },
    },
    tools: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          values: { type: 'object', additionalProperties: valueListSchema },
          precompute: { type: 'boolean' },
          live: { type: 'boolean' },
          timeoutSecs: { type: 'number', exclusiveMinimum: 0 },
        },
      },
    },
  },
};

/** Remembers configuration texts that passed validation, so an unchanged one is not checked again. */
export interface ValidationMemory {
  isKnownValid(text: string): boolean;
  rememberValid(text: string): void;
}

export async function readConfig(projectRoot: string, memory?: ValidationMemory): Promise<ProjectConfig> {
  const file = path.join(projectRoot, CONFIG_FILE);
  let text: string;
  try {
    text = await readRegularFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { limits: { ...DEFAULT_LIMITS }, tools: {} };
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
    const problems = compileValidator(configSchema, CONFIG_FILE, { trusted: true })(raw);
    if (problems.length > 0) {
      throw new StaticMcpError(
        'CONFIG_INVALID',
        `${CONFIG_FILE} is invalid: ${problems.join('; ')}`,
        'See the README section "staticmcp.json" for the accepted keys.',
      );
    }
    memory?.rememberValid(text);
  }
  const config = raw as Partial<ProjectConfig>;
  return { ...config, limits: { ...DEFAULT_LIMITS, ...config.limits }, tools: config.tools ?? {} };
}
