// `prompts/list` and `prompts/get`: definitions from the manifest (paginated like tools/list), and
// a prompt rendered from its stored file (`prompts/<name>.json`: a text template, or messages with
// content blocks) by rendering `{{name}}` placeholders and `{{#name}}…{{/name}}` sections, after the arguments are checked against
// the stored JSON Schema.
import { promptFilePath } from '../tree/manifest.js';
import { renderPromptTemplate } from '../tree/prompt-template.js';
import { INTERNAL_ERROR, INVALID_PARAMS, RpcError } from './json-rpc.js';
import { listHandler } from './pagination.js';
import { shapeContentBlock, shapePrompt } from './protocol-versions.js';
import { validatorFor } from './schema-validators.js';
import type { ServerContext, RequestContext } from './server-context.js';
import type { TreePrompt } from '../tree-reading/loaded-tree.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

export const listPrompts = listHandler(
  'prompts',
  'prompts',
  (server) => server.tree.prompts,
  (prompt, version) => shapePrompt(prompt.definition, version),
);

/** Every string inside a stored message rendered (texts, an embedded resource's uri, …). */
function renderDeep(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === 'string') return renderPromptTemplate(value, values);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, values));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderDeep(item, values)]));
  return value;
}

/** Stored messages → PromptMessages; undefined when the file holds none that are usable. */
function renderMessages(
  stored: unknown,
  values: Record<string, string>,
  version: RequestContext['version'],
): JsonObject[] | undefined {
  if (!Array.isArray(stored) || stored.length === 0) return undefined;
  const messages: JsonObject[] = [];
  for (const message of stored) {
    if (!isObject(message) || !isObject(message.content)) return undefined;
    messages.push({
      role: message.role === 'assistant' ? 'assistant' : 'user',
      content: shapeContentBlock(renderDeep(message.content, values), version),
    });
  }
  return messages;
}

/** Required argument names: from the stored schema, and from the manifest definition (other generators). */
function requiredArguments(prompt: TreePrompt, schema: JsonObject | undefined): string[] {
  const required = new Set<string>();
  if (schema && Array.isArray(schema.required))
    for (const name of schema.required) if (typeof name === 'string') required.add(name);
  const declared = prompt.definition.arguments;
  if (Array.isArray(declared))
    for (const argument of declared)
      if (isObject(argument) && argument.required === true && typeof argument.name === 'string')
        required.add(argument.name);
  return [...required];
}

/** The values to render with: given strings, then schema defaults for the rest. */
function valuesWithDefaults(given: Record<string, string>, schema: JsonObject | undefined): Record<string, string> {
  const values = { ...given };
  const properties = schema && isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (values[name] === undefined && isObject(property) && property.default !== undefined) {
      values[name] = typeof property.default === 'string' ? property.default : JSON.stringify(property.default);
    }
  }
  return values;
}

export async function getPrompt(
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  const name = params?.name;
  if (typeof name !== 'string') throw new RpcError(INVALID_PARAMS, 'prompts/get needs params.name (a string)');
  const { tree, reader } = server;
  const prompt = tree.promptsByName.get(name);
  if (!prompt) throw new RpcError(INVALID_PARAMS, `Unknown prompt: ${name}`);
  const rawArguments = params?.arguments ?? {};
  if (!isObject(rawArguments))
    throw new RpcError(INVALID_PARAMS, 'prompts/get params.arguments must be an object of strings');
  const given: Record<string, string> = {};
  for (const [argument, value] of Object.entries(rawArguments)) {
    // MCP sends prompt arguments as strings; a null is treated as not given.
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string')
      throw new RpcError(INVALID_PARAMS, `Invalid arguments for prompt ${name}: "${argument}" must be a string`);
    given[argument] = value;
  }

  const file = await reader.readJson(promptFilePath(name), request.answerRoom, `the prompt ${name}`);
  const usable =
    file.kind === 'ok' &&
    isObject(file.value) &&
    (typeof file.value.template === 'string' || Array.isArray(file.value.messages));
  if (file.kind !== 'ok' || !isObject(file.value) || !usable) {
    const why =
      file.kind === 'broken'
        ? file.reason
        : file.kind === 'missing'
          ? `${promptFilePath(name)} is missing`
          : `${promptFilePath(name)} has no "template" or "messages"`;
    server.logProblem(`prompts/get ${name}: ${why}`);
    throw new RpcError(INTERNAL_ERROR, `Prompt ${name} is listed but cannot be rendered (${why}); rebuild the tree`);
  }
  const stored = file.value;
  const schema = isObject(stored.arguments) ? stored.arguments : undefined;

  const missing = requiredArguments(prompt, schema).filter((argument) => given[argument] === undefined);
  if (missing.length > 0) {
    throw new RpcError(
      INVALID_PARAMS,
      `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((argument) => `"${argument}"`).join(', ')} for prompt ${name}`,
    );
  }
  if (schema) {
    const validate = await validatorFor(server, tree, `prompt:${name}`, schema, 'arguments', (reason) => {
      server.logProblem(`prompt ${name}: its arguments schema cannot be used (${reason}); not validating`);
    });
    const problems = validate ? validate(given) : [];
    if (problems.length > 0)
      throw new RpcError(INVALID_PARAMS, `Invalid arguments for prompt ${name}: ${problems.join('; ')}`);
  }

  const values = valuesWithDefaults(given, schema);
  const description = prompt.definition.description;
  let messages: JsonObject[];
  if (typeof stored.template === 'string') {
    const role = stored.role === 'assistant' ? 'assistant' : 'user';
    messages = [{ role, content: { type: 'text', text: renderPromptTemplate(stored.template, values) } }];
  } else {
    const rendered = renderMessages(stored.messages, values, request.version);
    if (!rendered) {
      server.logProblem(
        `prompts/get ${name}: ${promptFilePath(name)} has messages that are not {role, content} objects`,
      );
      throw new RpcError(
        INTERNAL_ERROR,
        `Prompt ${name} is listed but cannot be rendered (its messages are malformed); rebuild the tree`,
      );
    }
    messages = rendered;
  }
  return { ...(typeof description === 'string' ? { description } : {}), messages };
}
