// The webhook bench's receiver, in a process of its own so its work does not count against the
// worker's: answers every POST with 204 on kept-alive connections and counts them. GET /count
// reports the count. Prints `ready <port>` once listening and exits when its stdin closes, so it
// never outlives the bench, however the bench ends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ count }));
    return;
  }
  req.resume();
  req.on('end', () => {
    count += 1;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`);
});
process.stdin.resume();
process.stdin.on('close', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
