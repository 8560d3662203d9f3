// The benchmarks' DNS server, in its own process (forked with tsx's loader: it runs the tests' server,
// packages/testkit/dns-server.ts, on dns2 over UDP and TCP on one port of 127.0.0.1, answering
// authoritatively from the records set). The parent fills it over IPC: { id, set: [[name, type,
// values], …] } sets those records (the testkit's set()), { id, queries: true } asks how many
// queries it has answered; each is answered { id, queries: { udp, tcp } }. It reports { port }
// once listening and exits when the parent goes away.
import { startDnsServer } from '../packages/testkit/dns-server.ts';

const server = await startDnsServer();
process.on('message', (m) => {
  for (const [name, type, values] of m.set ?? []) server.set(name, type, values);
  process.send({ id: m.id, queries: { ...server.queries } });
});
process.send({ port: server.port });
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
