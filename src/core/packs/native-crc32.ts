// CRC-32 by the host's native code, where it has one (issue #40): workerd's `crypto.DigestStream`
// takes `crc32`, the same CRC as crc32.ts (IEEE, the zip and PNG one), so a cold worker checks a
// term record of hundreds of KB without running, compiling and recompiling the JavaScript loop of
// crc32.ts. Node and browsers have no DigestStream: there this answers undefined and callers run
// crc32.ts, as does anything unexpected (an algorithm the host refuses, a digest of another size).
// Portable.

/** workerd's DigestStream: a WritableStream whose `digest` settles once it is closed. */
type DigestStreamConstructor = new (
  algorithm: string,
) => WritableStream<Uint8Array> & { readonly digest: Promise<ArrayBuffer> };

/** Set once the host refused the algorithm: no later record tries it again. */
let refused = false;

const digestStreamOfHost = (): DigestStreamConstructor | undefined =>
  (globalThis as { crypto?: { DigestStream?: DigestStreamConstructor } }).crypto?.DigestStream;

/** Whether the host may compute CRC-32 natively: callers skip the asynchronous try where it cannot (Node). */
export function hasNativeCrc32(): boolean {
  return !refused && digestStreamOfHost() !== undefined;
}

/**
 * The CRC-32 of `bytes` computed natively, or undefined where the host cannot (then the caller
 * computes it with crc32.ts). The bytes are written, not handed over: the host copies them.
 */
export async function nativeCrc32(bytes: Uint8Array): Promise<number | undefined> {
  const DigestStream = digestStreamOfHost();
  if (DigestStream === undefined || refused) return undefined;
  let stream: InstanceType<DigestStreamConstructor>;
  try {
    stream = new DigestStream('crc32');
  } catch {
    refused = true;
    return undefined;
  }
  try {
    const writer = stream.getWriter();
    await writer.write(bytes);
    await writer.close();
    const digest = new Uint8Array(await stream.digest);
    if (digest.length !== 4) {
      refused = true;
      return undefined;
    }
    // Big-endian, as a record stores its CRC.
    return ((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0;
  } catch {
    return undefined;
  }
}
