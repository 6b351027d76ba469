// The project whose scripts answer live calls and state reads: resolves a script path from the
// manifest inside the project (never outside it, whatever a remote manifest says) and runs it
// through run-script.ts, with bounded concurrency and the project's own limits.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { runScript } from '../../../script/run-script.js';
import { CLIENT_CHANNEL_FD } from '../../../core/mcp/client-requests.js';
import { addOptionVariables, createBaseEnvironment } from '../../../script/script-environment.js';
import type { LiveRunner, LiveRunOutcome, LiveRunRequest } from '../../../core/mcp/live-port.js';
import { DEFAULT_TOOLS_FOLDER } from '../../../core/tree/manifest.js';
import { checkTreePath } from '../../../core/tree/tree-source.js';
import { ConcurrencyGate } from '../../../core/mcp/concurrency-gate.js';
import { readConfigOrDefaults } from '../../../project/config.js';

export class LiveProject implements LiveRunner {
  /** Made on the first run, from --live-concurrency or the project's limits.liveConcurrency. */
  private gate: ConcurrencyGate | undefined;
  private readonly realRoot: Promise<string>;
  private readonly reportedProblems = new Set<string>();

  constructor(
    readonly root: string,
    private readonly concurrency: number | undefined,
    private readonly logProblem: (text: string) => void = () => {},
  ) {
    this.realRoot = fs.realpath(root);
    // Loads the config reader and its validator now, off the first live call's clock (a client
    // may give a streamed answer's first frame well under a second).
    this.realRoot.then((realRoot) => readConfigOrDefaults(realRoot)).catch(() => {});
  }

  /** The tools folder for MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY: the recorded one when it is a plain path inside the project. */
  private toolsRoot(realRoot: string, toolsFolder: string | undefined): string {
    const folder = toolsFolder ?? DEFAULT_TOOLS_FOLDER;
    if (folder === '') return realRoot;
    return checkTreePath(folder)
      ? path.join(realRoot, DEFAULT_TOOLS_FOLDER)
      : path.join(realRoot, ...folder.split('/'));
  }

  /** The script file inside the project, or a reason it cannot be run (no absolute paths in it). */
  private async resolveScript(scriptPath: string): Promise<{ file: string } | { problem: string }> {
    if (checkTreePath(scriptPath))
      return { problem: `the tree names the script "${scriptPath}", which is not a plain path inside the project` };
    const realRoot = await this.realRoot;
    let file: string;
    try {
      file = await fs.realpath(path.join(realRoot, ...scriptPath.split('/')));
    } catch {
      return {
        problem: `the script ${scriptPath} is not in the live project; rebuild the tree or pass the right --live folder`,
      };
    }
    if (!file.startsWith(`${realRoot}${path.sep}`))
      return { problem: `the script ${scriptPath} leads outside the live project; it was not run` };
    return { file };
  }

  async run(request: LiveRunRequest): Promise<LiveRunOutcome> {
    const resolved = await this.resolveScript(request.scriptPath);
    if ('problem' in resolved) return resolved;
    const realRoot = await this.realRoot;
    // Read on each run, so a `staticmcp dev` session sees an edited staticmcp.json at once; a broken
    // one must not stop live calls: they use the defaults, and say so once.
    const { config, problem } = await readConfigOrDefaults(realRoot);
    const limits = config.limits;
    if (problem && !this.reportedProblems.has(problem)) {
      this.reportedProblems.add(problem);
      this.logProblem(`${problem}; live runs use the default limits until it is fixed`);
    }
    const slots = this.concurrency ?? limits.liveConcurrency;
    this.gate ??= new ConcurrencyGate(slots);
    // Time spent waiting for a slot counts against the caller's timeout: a call queued behind slow
    // ones is answered when its time is up, not whenever a slot frees.
    const timeoutMs = request.timeoutMs ?? limits.timeoutMs;
    const queuedAt = Date.now();
    const waitLimit = AbortSignal.timeout(timeoutMs);
    let release: () => void;
    try {
      release = await this.gate.acquire(request.signal ? AbortSignal.any([request.signal, waitLimit]) : waitLimit);
    } catch {
      if (request.signal?.aborted) return { problem: `${request.scriptPath} was cancelled before it started` };
      return {
        problem: `${request.scriptPath} did not start: all ${slots} live-run slots stayed busy for its whole timeout (${timeoutMs} ms); try again, or raise limits.liveConcurrency in staticmcp.json (or --live-concurrency)`,
      };
    }
    try {
      const toolsRoot = this.toolsRoot(realRoot, request.toolsFolder);
      const env = createBaseEnvironment({
        projectRoot: realRoot,
        toolsRoot,
        phase: request.phase,
        toolName: request.toolName,
      });
      if (request.args) addOptionVariables(env, request.declaredOptions ?? [], request.args);
      Object.assign(env, request.environment);
      // Tells the script it may ask the client questions on this descriptor (live tool calls only).
      if (request.onClientLine) env.STATICMCP_CLIENT_FD = String(CLIENT_CHANNEL_FD);
      const run = await runScript({
        file: resolved.file,
        args: request.phase === 'state' ? ['--state'] : [],
        cwd: realRoot,
        env,
        stdin: request.args ? JSON.stringify(request.args) : '',
        timeoutMs: Math.max(1, timeoutMs - (Date.now() - queuedAt)),
        budgetMs: timeoutMs,
        maxOutputBytes: limits.maxOutputBytes,
        signal: request.signal,
        onLogLine: request.onLogLine,
        onProgressLine: request.onProgressLine,
        onClientLine: request.onClientLine,
        displayName: request.scriptPath,
      });
      return { run };
    } finally {
      release();
    }
  }
}
