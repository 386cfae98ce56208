// The broadcast bench's SMTP server (tests/bench/broadcasts.ts), in a process of its own so its
// parsing does not count against the mail worker's: smtp-server on loopback, no TLS, no login,
// accepting every message and counting them, the distinct recipients (so a message sent twice
// shows) and those with a List-Unsubscribe header. An HTTP side port answers GET /count. Prints
// `ready <smtpPort> <httpPort>` once both listen, and exits when its stdin closes, so it never
// outlives the bench, however the bench ends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let messages = 0;
let listUnsubscribe = 0;
const recipients = new Set<string>();

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  // The worker's pool keeps up to 5 connections; room for a second worker and stragglers.
  maxClients: 100,
  onData(stream, session, cb) {
    // The header is all it reads: whether the message can be unsubscribed from (RFC 8058).
    let head = '';
    let inHead = true;
    stream.on('data', (chunk: Buffer) => {
      if (!inHead) return;
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end >= 0 || head.length > 65_536) {
        inHead = false;
        if (end >= 0) head = head.slice(0, end);
      }
    });
    stream.on('end', () => {
      messages += 1;
      if (/^List-Unsubscribe:/im.test(head)) listUnsubscribe += 1;
      for (const r of session.envelope.rcptTo) recipients.add(r.address);
      cb();
    });
  },
});

const side = http.createServer((req, res) => {
  if (req.url === '/count') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ messages, recipients: recipients.size, listUnsubscribe }));
    return;
  }
  res.writeHead(404).end();
});

smtp.listen(0, '127.0.0.1', () => {
  side.listen(0, '127.0.0.1', () => {
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const httpPort = (side.address() as AddressInfo).port;
    process.stdout.write(`ready ${smtpPort} ${httpPort}\n`);
  });
});
process.stdin.resume();
process.stdin.on('close', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
