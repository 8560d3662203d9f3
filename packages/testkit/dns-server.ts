// A real DNS server on 127.0.0.1 for tests (dns2), over UDP and TCP on one port: it answers
// authoritatively from records a test sets, as a zone's server does (CNAMEs followed within it,
// NXDOMAIN against NODATA, AA and RA set), with faults per name (SERVFAIL, no answer, a truncated
// UDP answer) and zones delegated to a second server whose answers it relays, as a recursive
// resolver does. The DNS checker's tests (server/test/domains-dns.test.ts) resolve through it with
// node:dns, pointed at `server` (the form MAILSVC_DNS_SERVERS and Resolver.setServers accept).
import type { RemoteInfo } from 'node:dgram';
import type { Socket } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;
type DnsPacket = InstanceType<typeof Packet>;
type Resource = DnsPacket['answers'][number];

export type RecordType = 'TXT' | 'MX' | 'CNAME' | 'NS' | 'A';
export type Fault = 'servfail' | 'timeout' | 'truncate';
export interface MxValue {
  exchange: string;
  priority: number;
}

export interface DnsTestServer {
  /** "127.0.0.1:PORT", the form MAILSVC_DNS_SERVERS and node:dns Resolver.setServers accept. */
  readonly server: string;
  readonly port: number;
  /**
   * Replaces every record at this name and type (name case-insensitive, trailing dot optional);
   * an empty list removes them. TXT: one entry per record, either its character-strings
   * (`['v=DKIM1; k=rsa; p=MIIB…', '…rest']`) or a plain string, split into 255-byte strings here.
   * MX: `{ exchange, priority }`. CNAME and NS: the target name. A: the IPv4 address.
   */
  set(name: string, type: 'TXT', values: string | (string | string[])[]): void;
  set(name: string, type: 'MX', values: MxValue | MxValue[]): void;
  set(name: string, type: 'CNAME' | 'NS' | 'A', values: string | string[]): void;
  /** Removes the records of this type at the name, or all of them when no type is given. */
  remove(name: string, type?: RecordType): void;
  /**
   * A fault for queries of this exact name (any type), or null to clear it: 'servfail' answers
   * SERVFAIL, 'timeout' never answers, 'truncate' answers over UDP with TC=1 and no records
   * (a resolver then asks over TCP, where the answer is whole).
   */
  fault(name: string, kind: Fault | null): void;
  /**
   * Names at or under `zone` are answered by asking `other` over the network and relaying its
   * answer (SERVFAIL when it does not answer), as a recursive resolver does for a delegated zone.
   */
  delegate(zone: string, other: DnsTestServer): void;
  /** Queries received, by transport (a relayed query counts on both servers). */
  readonly queries: { udp: number; tcp: number };
  close(): Promise<void>;
}

/** "Example.COM." → "example.com". */
export const normalizeName = (name: string): string => name.trim().replace(/\.$/, '').toLowerCase();

/** A string as character-strings of at most 255 bytes (RFC 1035 §3.3), not splitting a character. */
export function splitCharacterStrings(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of value) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > 255) {
      parts.push(current);
      current = '';
      bytes = 0;
    }
    current += ch;
    bytes += size;
  }
  parts.push(current);
  return parts;
}

type Stored =
  | { type: 'TXT'; data: string[] }
  | { type: 'MX'; mx: MxValue }
  | { type: 'CNAME' | 'NS' | 'A'; target: string };

function stored(type: RecordType, value: string | string[] | MxValue): Stored {
  if (type === 'TXT') {
    return { type, data: Array.isArray(value) ? value : splitCharacterStrings(value as string) };
  }
  if (type === 'MX') {
    const mx = value as MxValue;
    return { type, mx: { exchange: normalizeName(mx.exchange), priority: mx.priority } };
  }
  const target = value as string;
  return { type, target: type === 'A' ? target : normalizeName(target) };
}

/** The wire record of a stored value, owned by `owner`. */
function resource(owner: string, r: Stored): Resource {
  const base = { name: owner, class: Packet.CLASS.IN, ttl: 60, type: Packet.TYPE[r.type] };
  switch (r.type) {
    case 'TXT':
      return new Packet.Resource({ ...base, data: r.data });
    case 'MX':
      return new Packet.Resource({ ...base, exchange: r.mx.exchange, priority: r.mx.priority });
    case 'CNAME':
      return new Packet.Resource({ ...base, domain: r.target });
    case 'NS':
      return new Packet.Resource({ ...base, ns: r.target });
    case 'A':
      return new Packet.Resource({ ...base, address: r.target });
  }
}

/** The records, the zones delegated and the faults: what the server answers from. */
class Zone {
  readonly records = new Map<string, Stored[]>();
  readonly faults = new Map<string, Fault>();
  readonly delegations = new Map<string, DnsTestServer>();

  of(name: string, type: RecordType): Stored[] {
    return (this.records.get(name) ?? []).filter((r) => r.type === type);
  }

  /** The server a name is delegated to (the longest zone that holds it), if any. */
  delegatedTo(name: string): DnsTestServer | undefined {
    let best: string | undefined;
    for (const zone of this.delegations.keys()) {
      if ((name === zone || name.endsWith(`.${zone}`)) && (!best || zone.length > best.length)) best = zone;
    }
    return best === undefined ? undefined : this.delegations.get(best);
  }

  /** A name exists when it has records, or a name with records or a delegated zone is under it. */
  exists(name: string): boolean {
    if (this.records.get(name)?.length) return true;
    const under = (n: string) => n.endsWith(`.${name}`);
    return [...this.records.keys()].some(under) || [...this.delegations.keys()].some(under);
  }

  /** The answer section and rcode for a question this server is authoritative for. */
  answer(qname: string, qtype: number): { answers: Resource[]; rcode: number } {
    const type = Packet.TYPE_NAME[qtype] as RecordType | undefined;
    const name = normalizeName(qname);
    const direct = type ? this.of(name, type) : [];
    // A CNAME beside other records (an illegal zone some providers produce): the asked type wins.
    if (direct.length) return { answers: direct.map((r) => resource(qname, r)), rcode: Packet.RCODE.NOERROR };
    const cname = this.of(name, 'CNAME')[0];
    if (!cname) {
      const rcode = this.exists(name) ? Packet.RCODE.NOERROR : Packet.RCODE.NXDOMAIN;
      return { answers: [], rcode };
    }
    return { answers: this.chain(qname, cname, type), rcode: Packet.RCODE.NOERROR };
  }

  /** The CNAME and, while its targets are this server's own names, theirs (at most 8, loop-safe). */
  private chain(qname: string, first: Stored, type: RecordType | undefined): Resource[] {
    const answers = [resource(qname, first)];
    const seen = new Set([normalizeName(qname)]);
    let target = first.type === 'CNAME' ? first.target : '';
    while (target && !seen.has(target) && seen.size <= 8 && !this.delegatedTo(target)) {
      seen.add(target);
      const records = type ? this.of(target, type) : [];
      if (records.length) return [...answers, ...records.map((r) => resource(target, r))];
      const next = this.of(target, 'CNAME')[0];
      if (next?.type !== 'CNAME') break;
      answers.push(resource(target, next));
      target = next.target;
    }
    return answers;
  }
}

/** Asks `other` the same question (UDP, then TCP when truncated) and copies its answer. */
async function relay(request: DnsPacket, response: DnsPacket, other: DnsTestServer): Promise<void> {
  const question = request.questions[0]!;
  const ask = dns2.UDPClient({ dns: '127.0.0.1', port: other.port, timeout: 2000 });
  try {
    const answer = await ask(question.name, Packet.TYPE_NAME[question.type], question.class);
    response.header.rcode = answer.header.rcode;
    response.answers = answer.answers;
    response.authorities = answer.authorities;
  } catch {
    response.header.rcode = Packet.RCODE.SERVFAIL;
  }
}

/** dns2's reply: a promise over UDP, nothing over TCP. */
type Send = (response: DnsPacket) => Promise<Buffer> | undefined;

async function handle(zone: Zone, request: DnsPacket, send: Send, transport: 'udp' | 'tcp'): Promise<void> {
  const response = Packet.createResponseFromRequest(request);
  response.header.aa = 1;
  response.header.ra = 1;
  const question = request.questions[0];
  const name = normalizeName(question?.name ?? '');
  const fault = zone.faults.get(name);
  if (fault === 'timeout') return;
  const delegate = zone.delegatedTo(name);
  if (!question) response.header.rcode = Packet.RCODE.FORMERR;
  else if (fault === 'servfail') response.header.rcode = Packet.RCODE.SERVFAIL;
  else if (fault === 'truncate' && transport === 'udp') response.header.tc = 1;
  else if (delegate) await relay(request, response, delegate);
  else {
    const { answers, rcode } = zone.answer(question.name, question.type);
    response.answers = answers;
    response.header.rcode = rcode;
  }
  try {
    await send(response);
  } catch {
    // the client went away, or the server closed while a relay was out
  }
}

/** A UDP socket on port 0, then TCP on the same number; tried again when TCP finds it taken. */
async function listenBoth(
  udpHandler: (req: DnsPacket, send: Send, client: RemoteInfo) => void,
  tcpHandler: (req: DnsPacket, send: Send, client: Socket) => void,
): Promise<{ udp: InstanceType<typeof dns2.UDPServer>; tcp: InstanceType<typeof dns2.TCPServer> }> {
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(udpHandler as never);
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    const { port } = udp.address();
    const tcp = dns2.createTCPServer(tcpHandler as never);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      tcp.once('error', resolve);
      tcp.listen(port, '127.0.0.1', () => resolve(null));
    });
    if (!error) return { udp, tcp };
    udp.close();
    if (error.code !== 'EADDRINUSE' || attempt >= 20) throw error;
  }
}

export async function startDnsServer(): Promise<DnsTestServer> {
  const zone = new Zone();
  const queries = { udp: 0, tcp: 0 };
  const sockets = new Set<Socket>();
  const { udp, tcp } = await listenBoth(
    (request, send) => {
      queries.udp++;
      void handle(zone, request, send, 'udp');
    },
    (request, send) => {
      queries.tcp++;
      void handle(zone, request, send, 'tcp');
    },
  );
  tcp.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = udp.address().port;

  const server: DnsTestServer = {
    server: `127.0.0.1:${port}`,
    port,
    queries,
    set(name: string, type: RecordType, values: unknown) {
      const key = normalizeName(name);
      const list = (Array.isArray(values) ? values : [values]) as (string | string[] | MxValue)[];
      const others = (zone.records.get(key) ?? []).filter((r) => r.type !== type);
      zone.records.set(key, [...others, ...list.map((v) => stored(type, v))]);
    },
    remove(name, type) {
      const key = normalizeName(name);
      const kept = type ? (zone.records.get(key) ?? []).filter((r) => r.type !== type) : [];
      if (kept.length) zone.records.set(key, kept);
      else zone.records.delete(key);
    },
    fault(name, kind) {
      if (kind) zone.faults.set(normalizeName(name), kind);
      else zone.faults.delete(normalizeName(name));
    },
    delegate(name, other) {
      zone.delegations.set(normalizeName(name), other);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
  return server;
}
