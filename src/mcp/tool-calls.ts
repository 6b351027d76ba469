// `tools/list` and `tools/call`: definitions verbatim (shaped for the negotiated version), calls
// answered from the tree after checking the file answers exactly these arguments, and misses run
// live when the tree allows it and the project is here.
import { applyDefaults, callFilePath } from '../tree/call-key.js';
import { sameJson } from '../tree/canonical-json.js';
import { lenientCallFilePaths } from '../tree/lenient-call-keys.js';
import { readCallFile } from '../tree/lenient-files.js';
import type { Validator } from '../tree/validator.js';
import { toToolResult } from '../script/tool-result.js';
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import { paginate } from './pagination.js';
import { shapeCallResult, shapeTool } from './protocol-versions.js';
import { RequestCancelled, type ServerContext, type RequestContext } from './server-context.js';
import type { LoadedTree, TreeTool } from './loaded-tree.js';
import { validatorFor } from './schema-validators.js';
import { ProgressReporter } from './progress-reporter.js';
import { formatClientAnswer, parseClientQuestion, refusedAnswer } from '../script/client-requests.js';

type JsonObject = Record<string, unknown>;

function toolValidator(server: ServerContext, tree: LoadedTree, name: string, schema: object, kind: 'input' | 'output'): Promise<Validator | null> {
  return validatorFor(server, tree, `${kind}:${name}`, schema, kind === 'input' ? 'arguments' : 'output', (reason) => {
    server.logProblem(`tool ${name}: its ${kind === 'input' ? 'inputSchema' : 'outputSchema'} cannot be used (${reason}); not validating`);
  });
}

function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}

export function listTools(server: ServerContext, params: JsonObject | undefined, request: RequestContext): JsonObject {
  const { page, nextCursor, _meta } = paginate(server.tree.tools, params, 'tools', server.tree.manifestHash);
  return { tools: page.map((tool) => shapeTool(tool.definition, request.version)), ...(nextCursor ? { nextCursor } : {}), _meta };
}

/** The declared arguments only (a schema without properties keeps everything). */
function declaredOnly(tool: TreeTool, args: JsonObject): JsonObject {
  if (tool.declaredParameters.length === 0 && !tool.extension) return args;
  return Object.fromEntries(Object.entries(args).filter(([name]) => tool.declaredParameters.includes(name)));
}

type Lookup = { hit: JsonObject } | { miss: true } | { broken: string };

async function lookUpPrecomputed(server: ServerContext, tool: TreeTool, given: JsonObject, withDefaults: JsonObject): Promise<Lookup> {
  const name = tool.definition.name;
  const paths = tool.extension
    ? [callFilePath(name, tool.extension.parameterOrder, withDefaults)]
    : lenientCallFilePaths(name, tool.declaredParameters, [given, withDefaults]);
  let broken: string | undefined;
  for (const candidate of paths) {
    const file = await server.reader.readJson(candidate);
    if (file.kind === 'missing') continue;
    if (file.kind === 'broken') {
      server.logProblem(`tools/call ${name}: ${file.reason}`);
      broken ??= file.reason;
      continue;
    }
    const { result, recordedArguments } = readCallFile(file.value);
    // Two argument sets can share a file name: the file must say it answers exactly these.
    if (recordedArguments && !sameJson(recordedArguments, withDefaults) && !sameJson(recordedArguments, given)) continue;
    return { hit: result };
  }
  return broken ? { broken } : { miss: true };
}

export async function callTool(server: ServerContext, params: JsonObject | undefined, request: RequestContext): Promise<JsonObject> {
  const name = params?.name;
  if (typeof name !== 'string') throw new RpcError(INVALID_PARAMS, 'tools/call needs params.name (a string)');
  const { tree } = server;
  const tool = tree.toolsByName.get(name);
  if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${name}`);
  const rawArgs = params?.arguments ?? {};
  if (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs)) {
    throw new RpcError(INVALID_PARAMS, 'tools/call params.arguments must be an object');
  }
  const given = rawArgs as JsonObject;
  const validate = await toolValidator(server, tree, name, tool.definition.inputSchema, 'input');
  const problems = validate ? validate(given) : [];
  if (problems.length > 0) return errorResult(`Invalid arguments for tool ${name}: ${problems.join('; ')}`);

  const withDefaults = declaredOnly(tool, applyDefaults(tool.definition.inputSchema as never, given));
  const lookup = await lookUpPrecomputed(server, tool, declaredOnly(tool, given), withDefaults);
  if ('hit' in lookup) return shapeCallResult(lookup.hit, request.version);

  const extension = tool.extension;
  if (!extension?.live || !server.live) {
    const why = 'broken' in lookup ? `its precomputed answer cannot be read (${lookup.broken})` : 'this call was not precomputed';
    const hint = extension?.live
      ? ` Live calls need the project: ${server.liveHint}.`
      : extension?.liveReason ? ` (${extension.liveReason}; live calls are off for this tool)` : '';
    return errorResult(`${name} with arguments ${JSON.stringify(withDefaults)}: ${why}.${hint}`);
  }
  return shapeCallResult(await runLive(server, tree, tool, withDefaults, request), request.version);
}

async function runLive(server: ServerContext, tree: LoadedTree, tool: TreeTool, args: JsonObject, request: RequestContext): Promise<JsonObject> {
  const name = tool.definition.name;
  const extension = tool.extension!;
  const progress = new ProgressReporter(request, name);
  // A question the script asked and still waits on is abandoned when the script is gone.
  const runOver = new AbortController();
  const outcome = await server.live!.run({
    scriptPath: extension.script,
    toolName: name,
    phase: 'live',
    args,
    declaredOptions: tool.declaredParameters,
    toolsFolder: tree.extension?.toolsFolder,
    // The tree's per-tool timeout (staticmcp.json or the script's timeoutSecs, when it was built).
    ...(extension.timeoutMs > 0 ? { timeoutMs: extension.timeoutMs } : {}),
    signal: request.signal,
    onLogLine: (line) => {
      if (request.wantsLog(line.level)) request.notify('notifications/message', { level: line.level, logger: name, data: line.message });
      progress.tick(line.message);
    },
    onProgressLine: (line) => progress.report(line),
    onClientLine: async (line) => {
      const question = parseClientQuestion(line);
      const answer = 'problem' in question ? refusedAnswer(question.problem) : await request.askClient(question.method, question.params, runOver.signal);
      return formatClientAnswer(answer);
    },
  }).finally(() => {
    runOver.abort();
    progress.finish();
  });
  if (request.signal.aborted) throw new RequestCancelled();
  if ('problem' in outcome) return errorResult(`${name}: ${outcome.problem}`);
  const { run } = outcome;
  if (run.failed) return errorResult(run.message);
  const outputSchema = tool.definition.outputSchema;
  const validateOutput = outputSchema && typeof outputSchema === 'object'
    ? (await toolValidator(server, tree, name, outputSchema, 'output')) ?? undefined
    : undefined;
  return toToolResult(run, { toolName: name, validateOutput, outputFormat: extension.outputFormat === 'mcp' ? 'mcp' : 'text' }) as unknown as JsonObject;
}
