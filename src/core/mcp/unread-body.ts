// A request body the answer did not need (a foreign Origin refused before the body was read, a
// 405, a 406 …) is read and dropped before the answer goes out, up to a cap, on every host. workerd
// closes a connection whose request body was left unread, without a `Connection: close`, so a
// keep-alive client's next request on it failed with ECONNRESET; Node's server needed the same
// drain. Reading it first leaves the connection clean; a body past the cap is cancelled (that
// connection then closes, as a client sending that much after a refusal deserves).

/** Reads and drops what is left of `request`'s body, at most `maxBytes`; never throws. */
export async function discardUnreadBody(request: Request, maxBytes: number): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  const reader = request.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}
