// A resource read by running a project script (a state script with `--state`, a template's
// provider): its stdout is the content. A run that fails is -32603 saying what went wrong, with
// the last lines the script printed on stderr: a read has no isError, and the failure must not
// pass for the resource's content.
import { decodeOutput } from '../results/tool-result.js';
import { INTERNAL_ERROR, RpcError } from './json-rpc.js';
import type { LiveRunner, LiveRunRequest } from './live-port.js';
import { RequestCancelled, type RequestContext } from './server-context.js';

/** How many stderr lines a failed read quotes. */
const STDERR_TAIL_LINES = 3;

/** Runs `run` for `uri` and resolves with its stdout text; `who` names the script in the error ("the template's provider"). */
export async function readLive(
  live: LiveRunner,
  request: RequestContext,
  uri: string,
  run: Omit<LiveRunRequest, 'signal'>,
  who: string,
): Promise<string> {
  return decodeOutput(await readLiveBytes(live, request, uri, run, who)).text;
}

/** Like readLive, resolving with the bytes the script printed (a template instance may be binary). */
export async function readLiveBytes(
  live: LiveRunner,
  request: RequestContext,
  uri: string,
  run: Omit<LiveRunRequest, 'signal'>,
  who: string,
): Promise<Uint8Array> {
  const outcome = await live.run({ ...run, signal: request.signal });
  if (request.signal.aborted) throw new RequestCancelled();
  if ('problem' in outcome) throw new RpcError(INTERNAL_ERROR, `${uri}: ${outcome.problem}`, { uri });
  const finished = outcome.run;
  if (!finished.failed && finished.exitCode === 0) return finished.stdout;
  const said = decodeOutput(finished.stderr).text.trim().split('\n').slice(-STDERR_TAIL_LINES).join(' ');
  const how = finished.failed ? finished.message : `${run.scriptPath} failed with exit code ${finished.exitCode}`;
  throw new RpcError(INTERNAL_ERROR, `${uri}: ${who} could not read it: ${how}${said ? `: ${said}` : ''}`, { uri });
}
