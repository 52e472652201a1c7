// The client side of the kinetrack WebSocket protocol, version 1 (docs/streaming.md): JSON text
// messages; hello, frame, stats and error from the server; pin, unpin, drag, release and reset
// from the client.
export const PROTOCOL_VERSION = 1;

export function connect(url, handlers) {
  const socket = new WebSocket(url);
  const queue = [];
  socket.addEventListener("open", () => {
    for (const m of queue.splice(0)) socket.send(m);
  });
  socket.addEventListener("message", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      handlers.onError?.("the server sent a message that is not JSON");
      return;
    }
    switch (msg.type) {
      case "hello":
        if (msg.version !== PROTOCOL_VERSION) {
          handlers.onError?.(`protocol version ${msg.version}, this viewer speaks ${PROTOCOL_VERSION}`);
          socket.close();
          return;
        }
        handlers.onHello(msg);
        break;
      case "frame": handlers.onFrame(msg); break;
      case "stats": handlers.onStats?.(msg); break;
      case "error": handlers.onError?.(msg.message); break;
      default: break; // newer message kinds are ignored
    }
  });
  socket.addEventListener("close", () => handlers.onClose?.());
  return {
    send(obj) {
      const text = JSON.stringify(obj);
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
      else if (socket.readyState === WebSocket.CONNECTING) queue.push(text);
    },
    close: () => socket.close(),
  };
}
