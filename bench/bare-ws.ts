/**
 * The WebSocket ceiling, run by the gateway bench as its own process on the same runtime as
 * Parley: a bare `ws` server on `PORT` (127.0.0.1) that greets each connection with a Hello-sized
 * frame and, on `POST /broadcast?count=M&bytes=B`, sends M frames of about B bytes to every
 * connection — what a gateway does at the very least, with nothing else.
 */
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const clients = new Set<WebSocket>();
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bare');
  if (url.pathname === '/ping') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  if (url.pathname === '/broadcast' && req.method === 'POST') {
    const count = Number(url.searchParams.get('count') ?? 1);
    const bytes = Number(url.searchParams.get('bytes') ?? 1024);
    res.writeHead(204).end();
    const payload = 'x'.repeat(bytes);
    for (let i = 0; i < count; i++) {
      // One serialisation per message, as the gateway does.
      const json = JSON.stringify({ op: 0, t: 'MESSAGE_CREATE', d: { content: payload, i } });
      for (const ws of clients) ws.send(json);
    }
    return;
  }
  res.writeHead(404).end();
});
const wss = new WebSocketServer({ server, path: '/gateway', perMessageDeflate: false });
wss.on('connection', (ws) => {
  clients.add(ws);
  ws.on('close', () => clients.delete(ws));
  ws.on('error', () => undefined);
  ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41250 }, s: null, t: null }));
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
