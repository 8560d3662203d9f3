// The webhooks bench's baseline, in its own process: raw fetch (undici) POSTs of the bodies the
// parent sends (IPC), signed headers included, with the concurrency given, to the receiver; reports its
// CPU from start to done. What mailsvc's runner does without the queue, the database or the lease.
const { url, bodies, concurrency } = await new Promise((resolve) => process.once('message', resolve));
const started = process.cpuUsage();
let next = 0;
async function lane() {
  for (;;) {
    const i = next++;
    if (i >= bodies.length) return;
    const { id, body, headers } = bodies[i];
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bench-id': id, ...headers },
      body,
    });
    await res.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
const cpu = process.cpuUsage(started);
process.send({ done: true, cpuMicros: cpu.user + cpu.system });
