// `tools/list` and `tools/call`: definitions verbatim (shaped for the negotiated version), calls
// answered from the tree after checking the file answers exactly these arguments, and misses run
// live when the tree allows it and the project is here.
import { markPrecomputed } from './precomputed-answers.js';
import { applyDefaults, callFilePath } from '../tree/call-key.js';
import { sameJson } from '../tree/canonical-json.js';
import { lenientCallFilePaths } from '../tree/lenient-call-keys.js';
import { readCallFile } from '../tree/lenient-files.js';
import type { Validator } from '../../validators/validator.js';
import { compileSimpleValidator } from '../../validators/simple-schema-validator.js';
import { toToolResult } from '../results/tool-result.js';
import { INVALID_PARAMS, METHOD_NOT_FOUND, RpcError } from './json-rpc.js';
import { listHandler } from './pagination.js';
import { answerableLists } from './answerable-lists.js';
import { shapeCallResult, shapeTool } from './protocol-versions.js';
import { RequestCancelled, type ServerContext, type RequestContext } from './server-context.js';
import type { LoadedTree, TreeTool } from '../tree-reading/loaded-tree.js';
import { validatorFor } from './schema-validators.js';
import { couldBePrecomputed } from './precomputable-call.js';
import { ProgressReporter } from './progress-reporter.js';
import { CLIENT_CAPABILITY_BY_METHOD, findMissingCapabilities, missingCapabilityError } from './client-capabilities.js';
import {
  INPUT_REQUIRED,
  inputRequiredResult,
  QUESTION_SETTLE_MS,
  questionKey,
  readRoundTripInput,
  type InputRequest,
  type RoundTripInput,
} from './input-required.js';
import { formatClientAnswer, parseClientQuestion, refusedAnswer } from './client-requests.js';
import type { JsonObject } from '../tree/json-object.js';
import { documentUrlBase, resolveResultUrls } from '../search/document-url.js';

function toolValidator(
  server: ServerContext,
  tree: LoadedTree,
  name: string,
  schema: object,
  kind: 'input' | 'output',
): Promise<Validator | null> {
  return validatorFor(server, tree, `${kind}:${name}`, schema, kind === 'input' ? 'arguments' : 'output', (reason) => {
    server.logProblem(
      `tool ${name}: its ${kind === 'input' ? 'inputSchema' : 'outputSchema'} cannot be used (${reason}); not validating`,
    );
  });
}

/**
 * Compiles the tools' input validators ahead of their first call (the session's preload): every
 * flat schema (a small closure each), and the first other one, which loads the host's full
 * compiler; the rest of those wait for their first call, as what ajv generates for each is
 * larger. One tool at a time, with a turn of the event loop between, so a request arriving
 * meanwhile waits for one compile at most.
 */
export async function prepareInputValidators(server: ServerContext): Promise<void> {
  const tree = server.tree;
  let fullCompilerLoaded = false;
  for (const tool of tree.tools) {
    if (tool.searchTool !== undefined) continue;
    const schema = tool.definition.inputSchema;
    const flat = compileSimpleValidator(schema, 'arguments') !== undefined;
    if (!flat && fullCompilerLoaded) continue;
    fullCompilerLoaded ||= !flat;
    await toolValidator(server, tree, tool.definition.name, schema, 'input');
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}

export const listTools = listHandler(
  'tools',
  'tools',
  async (server) => (await answerableLists(server)).tools,
  (tool, version) => shapeTool(tool.definition, version),
);

/** The declared arguments only (a schema without properties keeps everything). */
export function declaredOnly(tool: TreeTool, args: JsonObject): JsonObject {
  if (tool.declaredParameters.length === 0 && !tool.extension) return args;
  // Usually every argument is declared: then the same object, not a copy.
  let undeclared = false;
  for (const name in args) undeclared ||= !tool.declaredParameters.includes(name);
  if (!undeclared) return args;
  return Object.fromEntries(Object.entries(args).filter(([name]) => tool.declaredParameters.includes(name)));
}

/**
 * How much of the arguments a "not precomputed" answer quotes: enough to recognise the call, while
 * a 4 MB argument is not sent back whole.
 */
const QUOTED_ARGUMENTS_LENGTH = 1000;

/** Strings longer than this are cut in the quote before the whole is written out. */
const QUOTED_STRING_LENGTH = 200;

function quoteArguments(args: JsonObject): string {
  const text = JSON.stringify(args, (_key, value: unknown) =>
    typeof value === 'string' && value.length > QUOTED_STRING_LENGTH
      ? `${value.slice(0, QUOTED_STRING_LENGTH)}… (${value.length} characters)`
      : value,
  );
  return text.length <= QUOTED_ARGUMENTS_LENGTH ? text : `${text.slice(0, QUOTED_ARGUMENTS_LENGTH)}…`;
}

type Lookup = { hit: JsonObject; path: string; file: unknown } | { miss: true } | { broken: string };

async function lookUpPrecomputed(
  server: ServerContext,
  tool: TreeTool,
  given: JsonObject,
  withDefaults: JsonObject,
  request: RequestContext,
): Promise<Lookup> {
  const name = tool.definition.name;
  const paths = tool.extension
    ? [callFilePath(name, tool.extension.parameterOrder, withDefaults)]
    : lenientCallFilePaths(name, tool.declaredParameters, [given, withDefaults]);
  let broken: string | undefined;
  for (const candidate of paths) {
    const file = await server.reader.readJson(candidate, request.answerRoom, `the precomputed answer of ${name}`);
    if (file.kind === 'missing') continue;
    if (file.kind === 'broken') {
      server.logProblem(`tools/call ${name}: ${file.reason}`);
      broken ??= file.reason;
      continue;
    }
    const { result, recordedArguments } = readCallFile(file.value);
    // Two argument sets can share a file name: the file must say it answers exactly these.
    if (recordedArguments && !sameJson(recordedArguments, withDefaults) && !sameJson(recordedArguments, given))
      continue;
    return { hit: result, path: candidate, file };
  }
  return broken ? { broken } : { miss: true };
}

export async function callTool(
  server: ServerContext,
  params: JsonObject | undefined,
  request: RequestContext,
): Promise<JsonObject> {
  const name = params?.name;
  if (typeof name !== 'string') throw new RpcError(INVALID_PARAMS, 'tools/call needs params.name (a string)');
  const { tree } = server;
  const tool = tree.toolsByName.get(name);
  if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${name}`);
  // A tool that cannot work without a client capability is refused before anything is read or
  // run, when the request says what its client declared (unknown on a stateless legacy POST).
  if (request.clientCapabilities !== undefined) {
    const missing = findMissingCapabilities(tool.extension?.requiredClientCapabilities, request.clientCapabilities);
    if (Object.keys(missing).length > 0) throw missingCapabilityError(name, missing);
  }
  const rawArgs = params?.arguments ?? {};
  if (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs)) {
    throw new RpcError(INVALID_PARAMS, 'tools/call params.arguments must be an object');
  }
  const given = rawArgs as JsonObject;
  if (tool.searchTool !== undefined && tree.search !== undefined) {
    // Answered from the search index; the reader checks its own arguments with messages a model can act on.
    const result = tool.searchTool === 'search' ? await tree.search.search(given) : await tree.search.fetch(given);
    const base = documentUrlBase(tree.extension?.publicUrl, server.requestOrigin);
    return shapeCallResult(resolveResultUrls(result, base), request.version);
  }
  const validate = await toolValidator(server, tree, name, tool.definition.inputSchema, 'input');
  const problems = validate ? validate(given) : [];
  if (problems.length > 0) return errorResult(`Invalid arguments for tool ${name}: ${problems.join('; ')}`);

  const withDefaults = declaredOnly(tool, applyDefaults(tool.definition.inputSchema, given));
  // 2026-07-28: what a re-sent call brings back (checked before anything runs; bad input is -32602).
  const roundTrip = request.multiRoundTrip ? await readRoundTripInput(params, name, withDefaults) : undefined;
  // No key is computed for a value no build could have used (a long free-text argument).
  const lookup: Lookup = couldBePrecomputed(tool, withDefaults)
    ? await lookUpPrecomputed(server, tool, declaredOnly(tool, given), withDefaults, request)
    : { miss: true };
  if ('hit' in lookup) return markPrecomputed(shapeCallResult(lookup.hit, request.version), lookup.path, lookup.file);

  const extension = tool.extension;
  if (!extension?.live || !server.live) {
    const why =
      'broken' in lookup ? `its precomputed answer cannot be read (${lookup.broken})` : 'this call was not precomputed';
    const hint = extension?.live
      ? ` Live calls need the project: ${server.liveHint}.`
      : extension?.liveReason
        ? ` (${extension.liveReason}; live calls are off for this tool)`
        : '';
    return errorResult(`${name} with arguments ${quoteArguments(withDefaults)}: ${why}.${hint}`);
  }
  const result = await runLive(server, tree, tool, withDefaults, request, roundTrip);
  return INPUT_REQUIRED in result ? result : shapeCallResult(result, request.version);
}

/** How a live run answers its script's questions: by asking the client, or from gathered answers. */
interface QuestionDesk {
  answer(line: string): Promise<string>;
  /** Questions no answer was gathered for (2026-07-28): the call stops and asks the client for them. */
  open: Map<string, InputRequest>;
  /** The gathered answers the script used, by key: what the next requestState carries. */
  used: JsonObject;
  /** True once the run was stopped to ask for the open questions. */
  stopped: boolean;
}

/**
 * Legacy era: each question becomes a request to the client on the call's own stream, one at a
 * time in the order asked (as they always were).
 */
function askingDesk(request: RequestContext, runOver: AbortSignal): QuestionDesk {
  let queue: Promise<unknown> = Promise.resolve();
  const answer = (line: string): Promise<string> => {
    const next = queue.then(async () => {
      const question = parseClientQuestion(line);
      const reply =
        'problem' in question
          ? refusedAnswer(question.problem)
          : await request.askClient(question.method, question.params, runOver);
      return formatClientAnswer(reply);
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return { answer, open: new Map(), used: {}, stopped: false };
}

/**
 * 2026-07-28: a question whose key has a gathered answer is answered at once; one the client
 * cannot answer (a capability it did not declare) is refused at once, so the script can fall
 * back; any other is held open. Once the script has been quiet for QUESTION_SETTLE_MS after an
 * open question (so several written together travel together), `stop` ends the run.
 */
function gatheringDesk(request: RequestContext, gathered: RoundTripInput, stop: () => void): QuestionDesk {
  const desk: QuestionDesk = { answer, open: new Map(), used: {}, stopped: false };
  let asked = 0;
  let settle: ReturnType<typeof setTimeout> | undefined;
  function answer(line: string): Promise<string> {
    const question = parseClientQuestion(line);
    asked += 1;
    if ('problem' in question) return Promise.resolve(formatClientAnswer(refusedAnswer(question.problem)));
    const key = questionKey(question.key, asked);
    if (typeof key !== 'string') return Promise.resolve(formatClientAnswer(refusedAnswer(key.problem)));
    const capability = CLIENT_CAPABILITY_BY_METHOD.get(question.method);
    if (capability === undefined) {
      return Promise.resolve(
        formatClientAnswer({
          error: {
            code: METHOD_NOT_FOUND,
            message: `a script may ask the client ${[...CLIENT_CAPABILITY_BY_METHOD.keys()].join(', ')}; not ${question.method}`,
          },
        }),
      );
    }
    const declared = request.clientCapabilities?.[capability];
    if (declared === null || typeof declared !== 'object' || Array.isArray(declared)) {
      return Promise.resolve(
        formatClientAnswer({
          error: {
            code: METHOD_NOT_FOUND,
            message: `the client did not declare the ${capability} capability, so it cannot be asked ${question.method}`,
          },
        }),
      );
    }
    const known = gathered.answers.get(key);
    if (known !== undefined) {
      desk.used[key] = known;
      return Promise.resolve(formatClientAnswer({ result: known }));
    }
    desk.open.set(key, { method: question.method, params: question.params });
    clearTimeout(settle);
    settle = setTimeout(() => {
      desk.stopped = true;
      stop();
    }, QUESTION_SETTLE_MS);
    // Never answered: the run ends (stopped, cancelled or timed out) and takes the wait with it.
    return new Promise<string>(() => {});
  }
  return desk;
}

async function runLive(
  server: ServerContext,
  tree: LoadedTree,
  tool: TreeTool,
  args: JsonObject,
  request: RequestContext,
  roundTrip?: RoundTripInput,
): Promise<JsonObject> {
  const name = tool.definition.name;
  const extension = tool.extension!;
  const progress = new ProgressReporter(request, name, server.startTickMs);
  // A question the script asked and still waits on is abandoned when the script is gone.
  const runOver = new AbortController();
  // Ends the run when the client cancels, or (2026-07-28) when it is time to ask for input.
  const runStop = new AbortController();
  const onCancel = (): void => runStop.abort();
  if (request.signal.aborted) runStop.abort();
  else request.signal.addEventListener('abort', onCancel, { once: true });
  const desk = roundTrip
    ? gatheringDesk(request, roundTrip, () => runStop.abort())
    : askingDesk(request, runOver.signal);
  const outcome = await server
    .live!.run({
      scriptPath: extension.script,
      toolName: name,
      phase: 'live',
      args,
      declaredOptions: tool.declaredParameters,
      toolsFolder: tree.extension?.toolsFolder,
      // The tree's per-tool timeout (staticmcp.json or the script's timeoutSecs, when it was built).
      ...(extension.timeoutMs > 0 ? { timeoutMs: extension.timeoutMs } : {}),
      signal: runStop.signal,
      onLogLine: (line) => {
        if (request.wantsLog(line.level))
          request.notify('notifications/message', { level: line.level, logger: name, data: line.message });
        progress.tick(line.message);
      },
      onProgressLine: (line) => progress.report(line),
      onClientLine: (line) => desk.answer(line),
    })
    .finally(() => {
      runOver.abort();
      request.signal.removeEventListener('abort', onCancel);
      progress.finish();
    });
  if (request.signal.aborted) throw new RequestCancelled();
  // Stopped to ask: the questions go to the client, with what was gathered so far sealed in the state.
  if (desk.stopped && desk.open.size > 0) return inputRequiredResult(name, args, desk.open, desk.used);
  if ('problem' in outcome) return errorResult(`${name}: ${outcome.problem}`);
  const { run } = outcome;
  if (run.failed) return errorResult(run.message);
  const outputSchema = tool.definition.outputSchema;
  const validateOutput =
    outputSchema && typeof outputSchema === 'object'
      ? ((await toolValidator(server, tree, name, outputSchema, 'output')) ?? undefined)
      : undefined;
  return toToolResult(run, {
    toolName: name,
    validateOutput,
    outputFormat: extension.outputFormat === 'mcp' ? 'mcp' : 'text',
  });
}
