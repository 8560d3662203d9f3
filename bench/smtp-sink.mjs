// The benchmark's SMTP sink, in its own process: accepts everything and reports each message's
// X-Mailsvc-Message-Id and arrival time to the parent; every SINK_SAMPLE_EVERY-th message (default
// 250) also whole, so the parent can parse it back and verify its DKIM signature.
import { SMTPServer } from 'smtp-server';

const sampleEvery = Number(process.env.SINK_SAMPLE_EVERY ?? 250);
let count = 0;

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
      process.send({ id, t: Date.now(), ...(raw && { raw }) });
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
