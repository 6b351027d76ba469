// Prompts from `prompts/`: a template file with `{{name}}` placeholders and `{{#name}}…{{/name}}`
// sections (core/tree/prompt-template.ts), or a `.json` file of
// messages with content blocks (message-prompts.ts), and a `<file>.meta.json` sidecar (name,
// title, description, role, arguments as a JSON Schema). A placeholder the arguments do not
// declare is an error for that prompt only.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readEitherSidecar } from './read-json-sidecar.js';
import type { Validator } from '../shared/ajv-validator.js';
import { sidecarValidator } from './sidecar-validators.js';
import type { PromptDefinition } from '../core/tree/manifest.js';
import type { RegisterEntry } from './register-json.js';
import { isMessagePromptFile, readMessagePrompt, stringsOf, type PromptMessage } from './message-prompts.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import { parsePromptTemplate } from '../core/tree/prompt-template.js';
import { PROMPT_NAME, PROMPT_NAME_IN_WORDS } from '../core/tree/name-rules.js';

/** What the tree stores for the bridge to render: one text template, or messages with content blocks. */
export type PromptFile =
  | { name: string; role: 'user' | 'assistant'; template: string; arguments: Record<string, unknown> }
  | { name: string; messages: PromptMessage[]; arguments: Record<string, unknown> };

export interface ProjectPrompt {
  definition: PromptDefinition;
  file: PromptFile;
}

export interface PromptDiscovery {
  prompts: ProjectPrompt[];
  problems: { relativePath: string; message: string }[];
  warnings: { relativePath: string; message: string }[];
}

/** Compiled on first use: most projects have no prompts. */
function promptMetaValidator(): Validator {
  return sidecarValidator('promptMeta', 'meta');
}

async function readMeta(
  file: string,
  relativePath: string,
  projectRoot: string,
): Promise<{ meta: Record<string, unknown>; problem?: string; notice?: string }> {
  const sidecar = await readEitherSidecar(file, relativePath, promptMetaValidator, projectRoot);
  const notice = sidecar.notice !== undefined ? { notice: sidecar.notice } : {};
  if (!sidecar.found) return { meta: {}, ...notice };
  return 'problem' in sidecar ? { meta: {}, problem: sidecar.problem, ...notice } : { meta: sidecar.meta, ...notice };
}

/**
 * Builds one prompt from its template text (or its messages) and metadata; returns a problem
 * instead when they disagree.
 */
export function createPrompt(
  name: string,
  template: string | PromptMessage[],
  meta: Record<string, unknown>,
): ProjectPrompt | string {
  if (!PROMPT_NAME.test(name))
    return `prompt name "${name}" must match ${PROMPT_NAME.source} (${PROMPT_NAME_IN_WORDS}); set "name" in its .meta.json`;
  const schema = (meta.arguments as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} };
  const properties = (schema.properties as Record<string, { description?: string }> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  const texts = typeof template === 'string' ? [template] : stringsOf(template);
  const used = new Set<string>();
  for (const text of texts) {
    const parsed = parsePromptTemplate(text);
    if ('problem' in parsed) return `the template does not parse: ${parsed.problem}`;
    for (const name of parsed.names) used.add(name);
  }
  const unknown = [...used].filter((placeholder) => !(placeholder in properties));
  if (unknown.length > 0) {
    return `the template uses {{${unknown.join('}}, {{')}}} but its arguments do not declare ${unknown.length > 1 ? 'them' : 'it'}; add ${unknown.length > 1 ? 'them' : 'it'} to "arguments" in the .meta.json`;
  }
  const definition: PromptDefinition = {
    name,
    ...(typeof meta.title === 'string' ? { title: meta.title } : {}),
    ...(typeof meta.description === 'string' ? { description: meta.description } : {}),
    arguments: Object.entries(properties).map(([argument, property]) => ({
      name: argument,
      ...(typeof property?.description === 'string' ? { description: property.description } : {}),
      required: required.includes(argument),
    })),
  };
  const file: PromptFile =
    typeof template === 'string'
      ? { name, role: (meta.role as 'user' | 'assistant') ?? 'user', template, arguments: schema }
      : { name, messages: template, arguments: schema };
  return { definition, file };
}

/** `projectRoot` bounds the files a message prompt may embed. */
export async function discoverPrompts(
  promptsRoot: string,
  registered?: RegisterEntry[],
  projectRoot = path.dirname(promptsRoot),
): Promise<PromptDiscovery> {
  const prompts: ProjectPrompt[] = [];
  const problems: PromptDiscovery['problems'] = [];
  const warnings: PromptDiscovery['warnings'] = [];
  let sources: { relativePath: string; meta?: Record<string, unknown> }[];
  if (registered) {
    sources = registered.map((entry) => ({ relativePath: entry.path!, meta: entry }));
  } else {
    let names: string[];
    try {
      names = (await fs.readdir(promptsRoot)).sort();
    } catch {
      return { prompts, problems, warnings };
    }
    sources = names
      .filter((name) => !name.startsWith('.') && !name.endsWith('.meta.json'))
      .map((name) => ({ relativePath: name }));
  }
  const seen = new Set<string>();
  for (const source of sources) {
    const file = path.join(promptsRoot, source.relativePath);
    let template: string;
    try {
      if (!(await fs.stat(file)).isFile()) continue;
      // Published as the prompt's text: it must really be inside the project.
      template = (await readProjectFile(file, projectRoot)).toString('utf8');
    } catch (error) {
      problems.push({ relativePath: source.relativePath, message: `cannot be read (${readFailureReason(error)})` });
      continue;
    }
    const sidecar = await readMeta(file, source.relativePath, projectRoot);
    if (sidecar.notice) warnings.push({ relativePath: source.relativePath, message: sidecar.notice });
    if (sidecar.problem) {
      problems.push({ relativePath: source.relativePath, message: sidecar.problem });
      continue;
    }
    let body: string | PromptMessage[] = template;
    let inlineMeta: Record<string, unknown> = {};
    if (isMessagePromptFile(source.relativePath)) {
      const read = await readMessagePrompt(template, path.dirname(file), projectRoot);
      if ('problem' in read) {
        problems.push({ relativePath: source.relativePath, message: read.problem });
        continue;
      }
      const inlineProblems = promptMetaValidator()(read.meta, source.relativePath);
      if (inlineProblems.length > 0) {
        problems.push({ relativePath: source.relativePath, message: inlineProblems.join('; ') });
        continue;
      }
      body = read.messages;
      inlineMeta = read.meta;
    }
    const meta = { ...inlineMeta, ...sidecar.meta, ...(source.meta ?? {}) };
    const name = (meta.name as string | undefined) ?? path.basename(source.relativePath).replace(/\.[^.]+$/, '');
    const prompt = createPrompt(name, body, meta);
    if (typeof prompt === 'string') {
      problems.push({ relativePath: source.relativePath, message: prompt });
      continue;
    }
    if (seen.has(name)) {
      problems.push({
        relativePath: source.relativePath,
        message: `another prompt is already named "${name}"; set a different "name" in its .meta.json`,
      });
      continue;
    }
    seen.add(name);
    prompts.push(prompt);
  }
  return { prompts, problems, warnings };
}
