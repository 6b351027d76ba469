// A POST body, read within its size cap, decoded as strict UTF-8 and parsed once: what it holds
// (a batch? initialize? its request ids? its one request?) is sorted out before any session or era
// sees it. A body that cannot be read, decoded or parsed becomes the HTTP error to answer.
import { parseJsonRpcText } from '../exact-ids.js';
import { classifyMessage, PARSE_ERROR, type JsonRpcRequest, type RequestId } from '../json-rpc.js';
import type { HttpAnswer, HttpExchange } from './http-exchange.js';
import { jsonError, SERVER_ERROR } from './json-answers.js';

/** What a POST body turned out to be, before any session sees it. */
export interface ParsedBody {
  value: unknown;
  isBatch: boolean;
  requestIds: RequestId[];
  isInitialize: boolean;
  /** The body's only message when it is a single request (what the modern era allows). */
  single?: JsonRpcRequest;
}

/** Stateless, so one decoder serves every request (`fatal`: bytes that are not UTF-8 are refused, not replaced). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The parsed body, or the 413 / 400 to answer. */
export async function readParsedBody(exchange: HttpExchange, maxBytes: number): Promise<ParsedBody | HttpAnswer> {
  const bytes = await exchange.readBody(maxBytes);
  if (bytes === 'too large')
    return jsonError(413, SERVER_ERROR, `Payload Too Large: the body is larger than ${maxBytes} bytes`);
  let text: string;
  try {
    if (bytes === 'unreadable') throw new Error('the client went away');
    text = utf8.decode(bytes);
  } catch {
    return jsonError(400, PARSE_ERROR, 'Parse error: the body could not be read as UTF-8');
  }
  return parseBody(text) ?? jsonError(400, PARSE_ERROR, 'Parse error: the body is not valid JSON');
}

/** Parses and sorts a body; undefined when it is not JSON. */
function parseBody(text: string): ParsedBody | undefined {
  let value: unknown;
  try {
    value = parseJsonRpcText(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) {
    const classified = classifyMessage(value);
    if (classified.kind !== 'request') return { value, isBatch: false, requestIds: [], isInitialize: false };
    const single = classified.message;
    return { value, isBatch: false, requestIds: [single.id], isInitialize: single.method === 'initialize', single };
  }
  const requestIds: RequestId[] = [];
  let isInitialize = false;
  for (const item of value) {
    const classified = classifyMessage(item);
    if (classified.kind !== 'request') continue;
    requestIds.push(classified.message.id);
    if (classified.message.method === 'initialize') isInitialize = true;
  }
  return { value, isBatch: true, requestIds, isInitialize };
}

/** Whether a parsed body is one, not a refusal. */
export function isParsedBody(value: ParsedBody | HttpAnswer): value is ParsedBody {
  return 'requestIds' in value;
}
