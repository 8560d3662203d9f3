// A private Postfix instance for the Postfix peer suite (postfix-peer.test.ts): its own
// config_directory, queue_directory and data_directory in a temporary directory, listening on
// 127.0.0.1 at free high ports, relaying everything it accepts to the test's sink
// (relayhost = [127.0.0.1]:<sink>). Neither the system's instance nor port 25 is touched.
//
// Three smtpd listeners:
// - `port`: STARTTLS (self-signed, made with openssl here), PIPELINING, 8BITMIME, SMTPUTF8, and a
//   recipient restriction that refuses `REJECTED_RECIPIENT` with 550 5.1.1;
// - `shortTimeoutPort`: the same, with smtpd_timeout = 2s, so Postfix drops idle sessions;
// - `plainPort`: no STARTTLS.
// smtpd is as strict as Postfix 3.9's defaults: pipelining outside RFC 2920's rules and bare LFs
// are refused (smtpd_forbid_unauth_pipelining, smtpd_forbid_bare_newline = reject). Postfix logs
// to `maillogFile` (postlogd), which each test reads to see what the session looked like.
//
// Starting Postfix needs root (master binds, then drops to mail_owner = postfix) and Debian's
// postfix package (the postfix user, the postdrop group, /usr/sbin/postfix).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@mailsvc/testkit/free-port';

const run = promisify(execFile);

export const POSTFIX = '/usr/sbin/postfix';
const POSTCONF = '/usr/sbin/postconf';
const POSTQUEUE = '/usr/sbin/postqueue';

/** The address Postfix refuses at RCPT TO (check_recipient_access, texthash: no postmap). */
export const REJECTED_RECIPIENT = 'no-such-user@relay.test';
/** Postfix's answer to RCPT TO:<REJECTED_RECIPIENT>. */
export const REJECTION = `550 5.1.1 <${REJECTED_RECIPIENT}>: Recipient address rejected: no such mailbox`;
/** smtpd_timeout of `shortTimeoutPort`. */
export const SHORT_TIMEOUT_S = 2;

/** Why the suite cannot run here, or null when it can. */
export function postfixUnavailable(): string | null {
  if (!existsSync(POSTFIX))
    return `Postfix is not installed at ${POSTFIX} (DEBIAN_FRONTEND=noninteractive apt-get install -y postfix; .ci/run installs it)`;
  if (process.getuid?.() !== 0) return 'starting a Postfix instance needs root';
  return null;
}

export interface PostfixInstance {
  dir: string;
  version: string;
  /** smtpd with STARTTLS. */
  port: number;
  /** smtpd with STARTTLS and smtpd_timeout = SHORT_TIMEOUT_S. */
  shortTimeoutPort: number;
  /** smtpd without STARTTLS. */
  plainPort: number;
  maillogFile: string;
  /** Postfix's log from byte `from` on (a `logMark()` taken earlier). */
  log(from?: number): string;
  logMark(): number;
  /** Waits until `test` finds what it looks for in the log from `from` on. */
  waitForLog(from: number, test: (log: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** Waits until Postfix's queue is empty: everything accepted was relayed (or bounced). */
  waitForEmptyQueue(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function mainCf(dir: string, relayPort: number): string {
  const conf = join(dir, 'conf');
  return `# The Postfix peer suite's private instance (packages/server/postfix/postfix-instance.ts).
compatibility_level = 3.6
queue_directory = ${join(dir, 'queue')}
data_directory = ${join(dir, 'data')}
mail_owner = postfix
setgid_group = postdrop
myhostname = postfix.relay.test
mydomain = relay.test
myorigin = $myhostname
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
maillog_file = ${join(dir, 'maillog')}
maillog_file_prefixes = ${dir}

# Nothing is delivered here: everything accepted is relayed to the test's sink.
mydestination =
local_recipient_maps =
alias_maps =
alias_database =
relayhost = [127.0.0.1]:${relayPort}
mynetworks = 127.0.0.0/8
smtp_tls_security_level = none
smtpd_peername_lookup = no

# What the client is tested against.
smtputf8_enable = yes
smtpd_tls_security_level = may
smtpd_tls_cert_file = ${join(conf, 'cert.pem')}
smtpd_tls_key_file = ${join(conf, 'key.pem')}
smtpd_tls_loglevel = 1
smtpd_tls_received_header = yes
smtpd_recipient_restrictions = check_recipient_access texthash:${join(conf, 'recipient_access')}, permit_mynetworks, reject
smtpd_forbid_unauth_pipelining = yes
smtpd_forbid_bare_newline = reject
smtpd_forbid_bare_newline_exclusions =

# A message the sink refuses stays queued for a look, rather than bouncing into nowhere.
bounce_queue_lifetime = 1h
maximal_queue_lifetime = 1h
`;
}

function masterCf(ports: { port: number; shortTimeoutPort: number; plainPort: number }): string {
  // No chroot anywhere (column 5 "n"): the queue directory holds no copy of /etc.
  return `# service type  private unpriv  chroot  wakeup  maxproc command + args
127.0.0.1:${ports.port} inet n - n - - smtpd
127.0.0.1:${ports.shortTimeoutPort} inet n - n - - smtpd
  -o smtpd_timeout=${SHORT_TIMEOUT_S}s
  -o syslog_name=postfix/short-timeout
127.0.0.1:${ports.plainPort} inet n - n - - smtpd
  -o smtpd_tls_security_level=none
  -o syslog_name=postfix/plain
pickup     unix  n - n 60 1 pickup
cleanup    unix  n - n - 0 cleanup
qmgr       unix  n - n 300 1 qmgr
tlsmgr     unix  - - n 1000? 1 tlsmgr
rewrite    unix  - - n - - trivial-rewrite
bounce     unix  - - n - 0 bounce
defer      unix  - - n - 0 bounce
trace      unix  - - n - 0 bounce
verify     unix  - - n - 1 verify
flush      unix  n - n 1000? 0 flush
proxymap   unix  - - n - - proxymap
proxywrite unix  - - n - 1 proxymap
smtp       unix  - - n - - smtp
relay      unix  - - n - - smtp
showq      unix  n - n - - showq
error      unix  - - n - - error
retry      unix  - - n - - error
discard    unix  - - n - - discard
local      unix  - n n - - local
anvil      unix  - - n - 1 anvil
scache     unix  - - n - 1 scache
postlog    unix-dgram n - n - 1 postlogd
`;
}

/** Creates, checks and starts the instance; it relays to 127.0.0.1:`relayPort`. */
export async function startPostfix(opts: { relayPort: number }): Promise<PostfixInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'mailsvc-postfix-'));
  const conf = join(dir, 'conf');
  const maillogFile = join(dir, 'maillog');
  const postfix = (...args: string[]) => run(POSTFIX, ['-c', conf, ...args], { timeout: 30_000 });
  let isStarted = false;

  const log = (from = 0) =>
    existsSync(maillogFile) ? readFileSync(maillogFile).subarray(from).toString() : '';
  const stop = async () => {
    if (isStarted) {
      isStarted = false;
      // Waits for master to exit (postfix-script: up to 5 s, then kill -9).
      await postfix('stop').catch(() => undefined);
    }
    // MAILSVC_POSTFIX_KEEP=1 keeps the configuration, queue and maillog for a look.
    if (process.env.MAILSVC_POSTFIX_KEEP) console.info(`Postfix instance kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };

  try {
    // The postfix user must reach the queue and data directories below this one.
    await run('chmod', ['755', dir]);
    for (const sub of ['conf', 'queue', 'data']) mkdirSync(join(dir, sub));
    await run('chown', ['postfix', join(dir, 'data')]);
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(conf, 'key.pem'),
      '-out',
      join(conf, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=postfix.relay.test',
    ]);
    const ports = { port: await freePort(), shortTimeoutPort: await freePort(), plainPort: await freePort() };
    writeFileSync(join(conf, 'main.cf'), mainCf(dir, opts.relayPort));
    writeFileSync(join(conf, 'master.cf'), masterCf(ports));
    writeFileSync(join(conf, 'recipient_access'), `${REJECTED_RECIPIENT} 550 5.1.1 no such mailbox\n`);
    const { stdout: version } = await run(POSTCONF, ['-c', conf, '-h', 'mail_version']);
    // Creates the queue's subdirectories with the owners Postfix wants, and complains otherwise.
    await postfix('check');
    await postfix('start');
    isStarted = true;
    const deadline = Date.now() + 20_000;
    for (const port of Object.values(ports)) {
      while (!(await accepts(port))) {
        if (Date.now() > deadline) throw new Error(`Postfix does not listen on 127.0.0.1:${port}`);
        await sleep(50);
      }
    }

    const waitForLog: PostfixInstance['waitForLog'] = async (from, test, what, timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const text = log(from);
        if (test(text)) return text;
        if (Date.now() > until)
          throw new Error(`Postfix's log does not show ${what} within ${timeoutMs} ms; it says:\n${text}`);
        await sleep(50);
      }
    };
    // postlogd writes asynchronously: the probes' sessions must be in the log before the tests
    // take their marks.
    await waitForLog(
      0,
      (l) => l.split('\n').filter((line) => line.includes(' disconnect from ')).length >= 3,
      'the three probe sessions',
    );
    const waitForEmptyQueue = async (timeoutMs = 30_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const { stdout } = await run(POSTQUEUE, ['-c', conf, '-p']);
        if (/Mail queue is empty/.test(stdout)) return;
        if (Date.now() > until)
          throw new Error(`Postfix's queue is not empty after ${timeoutMs} ms:\n${stdout}\nlog:\n${log()}`);
        await sleep(100);
      }
    };
    return {
      dir,
      version: version.trim(),
      ...ports,
      maillogFile,
      log,
      logMark: () => (existsSync(maillogFile) ? readFileSync(maillogFile).length : 0),
      waitForLog,
      waitForEmptyQueue,
      stop,
    };
  } catch (err) {
    const detail = log();
    await stop();
    if (err instanceof Error && detail) err.message += `\nPostfix's log:\n${detail}`;
    throw err;
  }
}
