// `completion/complete` from the tree's `completions.json`: values for a prompt argument
// (`ref/prompt`), a resource template variable (`ref/resource`, by its uriTemplate) or, as an
// extension some clients send, a tool parameter (`ref/tool`). Case-insensitive prefix match, at
// most 100 values, with `total` and `hasMore`. A reference the tree does not define is -32602.
// A reference with a script provider (register.json `{name, path}`) is answered by running it live
// when the project is there; otherwise, or when the run fails, from its precomputed answer.
import { templateVariables } from '../tree/uri-template.js';
import { completionRunInput, parseCompletionOutput } from '../tree/completion-provider.js';
import { decodeOutput } from '../results/tool-result.js';
import { RequestCancelled } from './server-context.js';
import type { CompletionTable } from '../tree/manifest.js';
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import type { ServerContext, RequestContext } from './server-context.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import type { TreeCompletionProvider } from '../tree-reading/tree-extension.js';
import { readCompletionTable } from './completion-table.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

type ReferenceKind = keyof CompletionTable;

export const MAX_COMPLETION_VALUES = 100;

/** The referenced thing's kind, key in completions.json, and the argument names it has. */
function resolveReference(
  tree: LoadedTree,
  ref: JsonObject,
): { kind: ReferenceKind; key: string; argumentNames: string[] } {
  switch (ref.type) {
    case 'ref/prompt': {
      if (typeof ref.name !== 'string')
        throw new RpcError(INVALID_PARAMS, 'completion/complete: a ref/prompt reference needs a "name"');
      const prompt = tree.promptsByName.get(ref.name);
      // mcp-bash routes a provider's own name as a prompt reference, prompt or not.
      if (!prompt && tree.extension?.completionProviders?.['ref/prompt']?.[ref.name])
        return { kind: 'ref/prompt', key: ref.name, argumentNames: [] };
      if (!prompt)
        throw new RpcError(
          INVALID_PARAMS,
          `completion/complete: unknown prompt "${ref.name}" (prompts/list shows the prompts this server has)`,
        );
      const declared = Array.isArray(prompt.definition.arguments) ? prompt.definition.arguments : [];
      const names = declared
        .filter(isObject)
        .map((argument) => argument.name)
        .filter((name): name is string => typeof name === 'string');
      return { kind: 'ref/prompt', key: ref.name, argumentNames: names };
    }
    case 'ref/resource': {
      if (typeof ref.uri !== 'string')
        throw new RpcError(INVALID_PARAMS, 'completion/complete: a ref/resource reference needs a "uri"');
      const template = tree.templates.find((candidate) => candidate.uriTemplate === ref.uri);
      if (template) {
        let names: string[] = [];
        try {
          names = templateVariables(ref.uri);
        } catch {
          // A template another generator wrote badly: nothing to complete, but still known.
        }
        return { kind: 'ref/resource', key: ref.uri, argumentNames: names };
      }
      // A plain resource has no variables; accepting it keeps clients that ask anyway working.
      if (tree.resourcesByUri.has(ref.uri)) return { kind: 'ref/resource', key: ref.uri, argumentNames: [] };
      throw new RpcError(
        INVALID_PARAMS,
        `completion/complete: unknown resource template "${ref.uri}" (resources/templates/list shows the templates this server has)`,
      );
    }
    case 'ref/tool': {
      if (typeof ref.name !== 'string')
        throw new RpcError(INVALID_PARAMS, 'completion/complete: a ref/tool reference needs a "name"');
      const tool = tree.toolsByName.get(ref.name);
      if (!tool)
        throw new RpcError(
          INVALID_PARAMS,
          `completion/complete: unknown tool "${ref.name}" (tools/list shows the tools this server has)`,
        );
      return { kind: 'ref/tool', key: ref.name, argumentNames: tool.declaredParameters };
    }
    default:
      throw new RpcError(
        INVALID_PARAMS,
        `completion/complete: unknown reference type ${JSON.stringify(ref.type)}; use ref/prompt or ref/resource (ref/tool is accepted too)`,
      );
  }
}

function providerFor(tree: LoadedTree, kind: ReferenceKind, key: string): TreeCompletionProvider | undefined {
  return tree.extension?.completionProviders?.[kind]?.[key];
}

/** The provider's own answer, or undefined (after logging why) when it could not give one. */
async function runProvider(
  server: ServerContext,
  provider: TreeCompletionProvider,
  asked: { ref: JsonObject; argument: string; value: string; context: JsonObject },
  request: RequestContext,
): Promise<JsonObject | undefined> {
  const input = completionRunInput({
    name: provider.name,
    ref: asked.ref,
    argument: asked.argument,
    value: asked.value,
    contextArguments: asked.context,
  });
  const outcome = await server.live!.run({
    scriptPath: provider.script,
    phase: 'live',
    args: input.args,
    declaredOptions: [],
    environment: input.environment,
    toolsFolder: server.tree.extension?.toolsFolder,
    ...(provider.timeoutMs !== undefined ? { timeoutMs: provider.timeoutMs } : {}),
    signal: request.signal,
  });
  if (request.signal.aborted) throw new RequestCancelled();
  const failed = (why: string): undefined => {
    server.logProblem(`completion/complete: ${provider.script} ${why}; answering from the tree instead`);
    return undefined;
  };
  if ('problem' in outcome) return failed(outcome.problem);
  const { run } = outcome;
  if (run.failed || run.exitCode !== 0) {
    const said = decodeOutput(run.stderr).text.trim().split('\n').slice(-1).join('');
    return failed(`${run.failed ? run.message : `failed with exit code ${run.exitCode}`}${said ? `: ${said}` : ''}`);
  }
  const parsed = parseCompletionOutput(decodeOutput(run.stdout).text);
  if ('problem' in parsed) return failed(parsed.problem);
  return {
    completion: {
      values: parsed.values.slice(0, MAX_COMPLETION_VALUES),
      total: parsed.values.length,
      hasMore: parsed.hasMore || parsed.values.length > MAX_COMPLETION_VALUES,
    },
  };
}

/** Values starting with `prefix`, ignoring case, in the table's order. */
export function matchCompletionValues(values: readonly unknown[], prefix: string): string[] {
  const wanted = prefix.toLowerCase();
  return values.filter((value): value is string => typeof value === 'string' && value.toLowerCase().startsWith(wanted));
}

export async function complete(
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  const { tree } = server;
  const ref = params?.ref;
  const argument = params?.argument;
  if (!isObject(ref))
    throw new RpcError(INVALID_PARAMS, 'completion/complete needs params.ref (an object with a type)');
  if (!isObject(argument) || typeof argument.name !== 'string') {
    throw new RpcError(
      INVALID_PARAMS,
      'completion/complete needs params.argument with a "name" (and the "value" typed so far)',
    );
  }
  const typed = argument.value === undefined ? '' : argument.value;
  if (typeof typed !== 'string')
    throw new RpcError(INVALID_PARAMS, 'completion/complete params.argument.value must be a string');
  const { kind, key, argumentNames } = resolveReference(tree, ref);
  const provider = providerFor(tree, kind, key);
  if (provider && server.live) {
    const context = isObject(params?.context) && isObject(params.context.arguments) ? params.context.arguments : {};
    const live = await runProvider(server, provider, { ref, argument: argument.name, value: typed, context }, request);
    if (live) return live;
  }
  const table = await readCompletionTable(server, tree);
  const byReference = isObject(table[kind]) ? table[kind] : {};
  const byArgument = isObject(byReference[key]) ? byReference[key] : {};
  if (!provider && !argumentNames.includes(argument.name) && !(argument.name in byArgument)) {
    const known =
      argumentNames.length > 0 ? `; it has ${argumentNames.map((name) => `"${name}"`).join(', ')}` : '; it has none';
    throw new RpcError(INVALID_PARAMS, `completion/complete: ${key} has no argument "${argument.name}"${known}`);
  }
  const listed = byArgument[argument.name];
  const values = Array.isArray(listed) ? listed : [];
  const matches = matchCompletionValues(values, typed);
  return {
    completion: {
      values: matches.slice(0, MAX_COMPLETION_VALUES),
      total: matches.length,
      hasMore: matches.length > MAX_COMPLETION_VALUES,
    },
  };
}
