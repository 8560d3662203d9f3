// The benchmark's SMTP sink, in its own process: accepts everything and reports each message's
// X-Mailsvc-Message-Id and arrival time to the parent; every SINK_SAMPLE_EVERY-th message (default
// 250) also whole, so the parent can parse it back and verify its DKIM signature. Reports go in
// batches every 10 ms (arrival times are taken here, per message): one IPC message per delivered
// message would cost the machine under test as much as a fifth of what the sink itself does.
import { SMTPServer } from 'smtp-server';

const sampleEvery = Number(process.env.SINK_SAMPLE_EVERY ?? 250);
let count = 0;

let pending = [];
function report(event) {
  if (pending.length === 0) setTimeout(flush, 10);
  pending.push(event);
}
function flush() {
  process.send({ events: pending });
  pending = [];
}

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  size: 10 * 1024 * 1024,
  onData(stream, _session, callback) {
    const isSample = ++count % sampleEvery === 0;
    const chunks = [];
    let head = '';
    stream.on('data', (chunk) => {
      if (isSample) chunks.push(chunk);
      if (head.length < 8192) head += chunk.toString('latin1');
    });
    stream.on('end', () => {
      const id = /^X-Mailsvc-Message-Id: *(\S+)/im.exec(head)?.[1] ?? '';
      const raw = isSample ? Buffer.concat(chunks).toString('base64') : undefined;
      report({ id, t: Date.now(), ...(raw && { raw }) });
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
