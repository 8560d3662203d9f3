// The delivery benchmark's baseline, in its own process as the worker is: raw nodemailer (the
// version the server's tests use), a pool of POOL connections and IN_FLIGHT concurrent sendMail
// calls, signing with the same DKIM key, sending the messages mailsvc rendered for the same
// recipients. Reads its job from the JSON file named by argv[2]; exits 0 when every message was
// handed to the sink. Started by bench/delivery.ts.
import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
// The nodemailer the server package pins (the root node_modules may hold another).
const nodemailer = createRequire(new URL('../packages/server/package.json', import.meta.url))('nodemailer');

// Parsed once, as the old in-process baseline did: a PEM string would be parsed again for every
// message, a cost of about 1 ms that would flatter the ratio.
const privateKey = createPrivateKey(job.privateKey);
const transporter = nodemailer.createTransport({
  host: '127.0.0.1',
  port: job.port,
  pool: true,
  maxConnections: job.pool,
  maxMessages: 1000,
});
let next = 0;
const lane = async () => {
  while (next < job.messages.length) {
    const i = next++;
    const r = job.messages[i];
    await transporter.sendMail({
      from: { name: 'Bench App', address: `notifications@${job.domain}` },
      to: r.to,
      subject: r.subject,
      html: r.html,
      text: r.text,
      messageId: `<${job.prefix}${i}@${job.domain}>`,
      headers: { 'X-Mailsvc-Message-Id': `${job.prefix}${i}` },
      envelope: { from: `bounces+${job.prefix}${i}@${job.domain}`, to: r.to },
      dkim: {
        domainName: job.domain,
        keySelector: job.selector,
        privateKey,
        headerFieldNames: job.signedHeaders,
      },
    });
  }
};
process.stdout.write('ready\n'); // loaded: the parent starts its start-to-drain clock here
const fromReady = process.cpuUsage();
await Promise.all(Array.from({ length: job.inFlight }, lane));
transporter.close();
// Its CPU from ready to the last message handed over, all threads (µs), for the parent's report.
const { user, system } = process.cpuUsage(fromReady);
process.stdout.write(`cpu ${user + system}\n`);
