import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_DIR, generatedDocs } from './cli/docs.js';
import { ConfigError, loadConfig } from './config.js';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.MAILSVC_DATA_DIR).toBe('.mailsvc');
    expect(c.dataDir).toBe('/srv/app/.mailsvc');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.MAILSVC_PUBLIC_URL).toBe('http://127.0.0.1:3000');
    expect(c.LOG_LEVEL).toBe('info');
  });

  it('stops start-up on a bad value, naming every bad key', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const keys = (err as ConfigError).problems.map((p) => p.key);
      expect(keys).toEqual(['PORT', 'DATABASE_URL', 'LOG_LEVEL']);
      expect((err as Error).message).toContain('PORT must be a whole number');
    }
  });

  it('reads retry delays as durations, and names a bad one', () => {
    expect(loadConfig({}).MAILSVC_RETRY_DELAYS).toEqual([
      60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000,
    ]);
    expect(loadConfig({ MAILSVC_RETRY_DELAYS: '500ms, 2s,1m,1h' }).MAILSVC_RETRY_DELAYS).toEqual([
      500, 2000, 60_000, 3_600_000,
    ]);
    for (const bad of ['', ' , ', '5 minutes', '10ms', '9d', '1m,,2m']) {
      if (bad === '') continue; // empty is unset: the default
      expect(() => loadConfig({ MAILSVC_RETRY_DELAYS: bad }), bad).toThrow(/MAILSVC_RETRY_DELAYS/);
    }
  });

  it('refuses a public URL with user info, a query or a fragment (links are built by appending a path)', () => {
    for (const bad of [
      'https://u:p@mail.example.com',
      'https://mail.example.com/?a=1',
      'https://mail.example.com/#x',
    ]) {
      expect(() => loadConfig({ MAILSVC_PUBLIC_URL: bad }), bad).toThrow(/MAILSVC_PUBLIC_URL/);
    }
    expect(loadConfig({ MAILSVC_PUBLIC_URL: 'https://mail.example.com/base/' }).MAILSVC_PUBLIC_URL).toBe(
      'https://mail.example.com/base',
    );
  });

  it('refuses an auth cache TTL over 5 seconds (revocation must reach every replica within 5 s)', () => {
    expect(() => loadConfig({ MAILSVC_AUTH_CACHE_TTL_MS: '6000' })).toThrow(/MAILSVC_AUTH_CACHE_TTL_MS/);
  });

  it('keeps docs/configuration.md, docs/errors.md and docs/openapi.json generated from the code (run npm run docs)', async () => {
    for (const [name, content] of Object.entries(await generatedDocs())) {
      expect(fs.readFileSync(path.join(DOCS_DIR, name), 'utf8'), name).toBe(content);
    }
  });
});
