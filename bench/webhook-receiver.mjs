// The benchmarks' webhook receiver, in its own process: answers every POST 204 and reports each
// request's webhook-id (or x-bench-id) and arrival time to the parent in batches every 10 ms (one
// IPC message per request would cost the machine under test more than the receiver itself).
import http from 'node:http';

let pending = [];
function report(event) {
  if (pending.length === 0) setTimeout(flush, 10);
  pending.push(event);
}
function flush() {
  process.send({ events: pending });
  pending = [];
}

const server = http.createServer((req, res) => {
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
  });
  req.on('end', () => {
    report({ id: String(req.headers['webhook-id'] ?? req.headers['x-bench-id'] ?? ''), t: Date.now(), size });
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
