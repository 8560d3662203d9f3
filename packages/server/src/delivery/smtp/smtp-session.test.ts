// The SMTP client's session: STARTTLS and implicit TLS, requireTLS, AUTH PLAIN and LOGIN.
import type { SMTPServerAuthentication } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { classifySmtpError } from '../classify.js';
import { smtpTransport } from '../transports/smtp.js';
import {
  cleanups,
  envelope,
  expectFailure,
  message,
  outgoing,
  pool,
  runCleanups,
  startRaw,
  startSink,
} from './smtp-test-servers.js';

afterEach(runCleanups);

describe('TLS', () => {
  it('STARTTLS: a server offering it gets an encrypted session (and EHLO again) before MAIL FROM', async () => {
    const sink = await startSink({ disabledCommands: ['AUTH'] });
    const p = pool(sink.port);
    const results = await Promise.all([1, 2, 3].map((i) => p.send(envelope(), message(`tls-${i}`))));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sink.received.map((r) => r.secure)).toEqual([true, true, true]);
    expect(new Set(sink.received.map((r) => r.id))).toEqual(new Set(['tls-1', 'tls-2', 'tls-3']));
    // the first bytes after STARTTLS are a TLS record, not a command in the clear
    const clear = sink.chunks[0]!.join('');
    expect(clear).toMatch(/^EHLO client\.mailsvc\.test\r\nSTARTTLS\r\n/);
    expect(clear).not.toMatch(/MAIL FROM/);
  });

  it('requireTLS (?requireTLS=true) against a server offering STARTTLS delivers encrypted', async () => {
    const sink = await startSink({ disabledCommands: ['AUTH'] });
    const transport = smtpTransport({
      url: `smtp://127.0.0.1:${sink.port}?requireTLS=true&name=client.mailsvc.test`,
      poolSize: 1,
      tls: { rejectUnauthorized: false },
    });
    cleanups.push(() => transport.close());
    const outcome = await transport.send(outgoing('require'));
    expect(outcome).toMatchObject({ kind: 'sent', smtpCode: 250 });
    expect(sink.received[0]!.secure).toBe(true);
  });

  it('requireTLS against a server without STARTTLS fails with ETLS and sends nothing', async () => {
    const sink = await startSink();
    const result = expectFailure(
      await pool(sink.port, { requireTLS: true }).send(envelope(), message('plain')),
    );
    expect(result.error.code).toBe('ETLS');
    expect(result.isUnsent).toBe(true);
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(sink.mailFroms).toHaveLength(0);
    expect(sink.chunks[0]!.join('')).not.toMatch(/MAIL FROM/);
  });

  it('STARTTLS with a certificate the client does not trust fails with ETLS and sends nothing', async () => {
    const sink = await startSink({ disabledCommands: ['AUTH'] });
    const result = expectFailure(await pool(sink.port, { tls: {} }).send(envelope(), message('untrusted')));
    expect(result.error.code).toBe('ETLS');
    expect(sink.mailFroms).toHaveLength(0);
    expect(sink.received).toHaveLength(0);
  });

  it('implicit TLS (secure: true) against a server listening with TLS', async () => {
    const sink = await startSink({ secure: true });
    const p = pool(sink.port, { secure: true });
    const results = await Promise.all([1, 2].map((i) => p.send(envelope(), message(`smtps-${i}`))));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(sink.received.map((r) => r.secure)).toEqual([true, true]);
    expect(sink.connects).toBe(1);
  });

  it('implicit TLS against a plain server fails with ETLS', async () => {
    const raw = await startRaw();
    const result = expectFailure(
      await pool(raw.port, { secure: true, greetingTimeoutMs: 500, connectionTimeoutMs: 500 }).send(
        envelope(),
        message('x'),
      ),
    );
    expect(result.error.code).toBe('ETLS');
    expect(raw.conns[0]!.commands).toEqual([]);
  });
});

describe('AUTH', () => {
  const good = (auth: SMTPServerAuthentication) =>
    auth.username === 'mailsvc' && auth.password === 's3cret:ü';

  it.each(['PLAIN', 'LOGIN'])('AUTH %s with good credentials delivers as that user', async (method) => {
    const sink = await startSink(
      { authMethods: [method], authOptional: false, disabledCommands: ['STARTTLS'], allowInsecureAuth: true },
      { auth: good },
    );
    const p = pool(sink.port, { auth: { user: 'mailsvc', pass: 's3cret:ü' } });
    const results = await Promise.all([1, 2].map((i) => p.send(envelope(), message(`auth-${i}`))));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(sink.auths).toEqual([{ method, username: 'mailsvc' }]);
    expect(sink.received.map((r) => r.user)).toEqual(['mailsvc', 'mailsvc']);
  });

  it.each(['PLAIN', 'LOGIN'])(
    'AUTH %s with bad credentials fails with EAUTH, a soft failure',
    async (method) => {
      const sink = await startSink(
        {
          authMethods: [method],
          authOptional: false,
          disabledCommands: ['STARTTLS'],
          allowInsecureAuth: true,
        },
        { auth: good },
      );
      const result = expectFailure(
        await pool(sink.port, { auth: { user: 'mailsvc', pass: 'wrong' } }).send(envelope(), message('bad')),
      );
      expect(result.error).toMatchObject({ code: 'EAUTH', command: 'AUTH', responseCode: 535 });
      expect(result.isUnsent).toBe(true);
      expect(classifySmtpError(result.error)).toMatchObject({ kind: 'soft_fail', smtpCode: 535 });
      expect(sink.auths).toEqual([{ method, username: 'mailsvc' }]);
      expect(sink.mailFroms).toHaveLength(0);
    },
  );

  it('a server offering no AUTH while credentials are configured fails with EAUTH and sends nothing', async () => {
    const sink = await startSink();
    const result = expectFailure(
      await pool(sink.port, { auth: { user: 'mailsvc', pass: 'x' } }).send(envelope(), message('noauth')),
    );
    expect(result.error.code).toBe('EAUTH');
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(sink.mailFroms).toHaveLength(0);
  });

  it('credentials in the URL authenticate after STARTTLS (the server refuses AUTH in the clear)', async () => {
    const sink = await startSink(
      { authMethods: ['PLAIN', 'LOGIN'], authOptional: false, disabledCommands: [] },
      { auth: good },
    );
    const transport = smtpTransport({
      url: `smtp://mailsvc:${encodeURIComponent('s3cret:ü')}@127.0.0.1:${sink.port}`,
      poolSize: 1,
      tls: { rejectUnauthorized: false },
    });
    cleanups.push(() => transport.close());
    const outcome = await transport.send(outgoing('url-auth'));
    expect(outcome).toMatchObject({ kind: 'sent' });
    expect(sink.received[0]).toMatchObject({ secure: true, user: 'mailsvc' });
    expect(sink.auths).toEqual([{ method: 'PLAIN', username: 'mailsvc' }]);
  });
});
