// The webhook benches' receiver, in a process of its own so its work does not count against the
// worker's: answers every POST with 204 on kept-alive connections and counts them, in all and per
// `Svc-Delivery-Id` (the two-process bench checks that no delivery arrived twice). GET /count
// reports the count, GET /deliveries the count per delivery id. Prints `ready <port>` once
// listening and exits when its stdin closes, so it never outlives the bench, however the bench ends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
const perDelivery = new Map<string, number>();
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ count }));
    return;
  }
  if (req.method === 'GET' && req.url === '/deliveries') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(Object.fromEntries(perDelivery)));
    return;
  }
  const id = req.headers['svc-delivery-id'];
  req.resume();
  req.on('end', () => {
    count += 1;
    if (typeof id === 'string') perDelivery.set(id, (perDelivery.get(id) ?? 0) + 1);
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
