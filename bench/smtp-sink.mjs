// The benchmark's SMTP sink, in its own process: accepts everything and reports each message's
// X-Mailsvc-Message-Id and arrival time to the parent.
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  size: 10 * 1024 * 1024,
  onData(stream, _session, callback) {
    let head = '';
    stream.on('data', (chunk) => {
      if (head.length < 8192) head += chunk.toString('latin1');
    });
    stream.on('end', () => {
      const id = /^X-Mailsvc-Message-Id: *(\S+)/im.exec(head)?.[1] ?? '';
      process.send({ id, t: Date.now() });
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
