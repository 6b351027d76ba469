// The DevTools socket of the worker a workerd started with an inspector port lists as `core:user:`:
// `send(method, params, timeoutMs)` resolves with the method's result ({} when it has none, as
// workerd answers takeHeapSnapshot by echoing the request), or undefined when no answer came in time.
import WebSocket from 'ws';

/** Opens the inspector socket of the worker behind `port`. */
export async function connectWorkerInspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((entry) => entry.id === 'core:user:');
  // Heap snapshots and profiles arrive as large messages on this socket: room for them.
  const socket = new WebSocket(target.webSocketDebuggerUrl, { maxPayload: 1 << 30 });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let nextId = 1;
  const send = (method, params = {}, timeoutMs = 120_000) =>
    new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        socket.off('message', onMessage);
        resolve(undefined);
      }, timeoutMs);
      const onMessage = (data) => {
        const message = JSON.parse(String(data));
        if (message.id !== id) return;
        clearTimeout(timer);
        socket.off('message', onMessage);
        resolve(message.result ?? {});
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}
