import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWrapperConfig, parseOrigins, WrapperConfigError, wrapperSpec } from '../src/config.js';

describe('loadWrapperConfig', () => {
  it('requires MAILSVC_API_KEY and fills the defaults', () => {
    expect(() => loadWrapperConfig({})).toThrow(/MAILSVC_API_KEY is required/);
    const c = loadWrapperConfig({ MAILSVC_API_KEY: 'msk_abc_secret' });
    expect(c).toMatchObject({
      MAILSVC_CORE_URL: 'http://127.0.0.1:3000',
      MAILSVC_ALLOWED_ORIGINS: [],
      MAILSVC_REQUIRE_APP_CHECK: false,
      MAILSVC_APP_CHECK_CONSUME: false,
      MAILSVC_WRAPPER_PORT: 3001,
      MAILSVC_WRAPPER_TIMEOUT_MS: 10_000,
      MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 60,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 10,
    });
  });

  it('names every bad key at once', () => {
    try {
      loadWrapperConfig({
        MAILSVC_CORE_URL: 'ftp://x',
        MAILSVC_REQUIRE_APP_CHECK: 'maybe',
        MAILSVC_WRAPPER_PORT: '99999',
        MAILSVC_ALLOWED_ORIGINS: '*',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(WrapperConfigError);
      expect((err as WrapperConfigError).problems.map((p) => p.key)).toEqual([
        'MAILSVC_API_KEY',
        'MAILSVC_CORE_URL',
        'MAILSVC_ALLOWED_ORIGINS',
        'MAILSVC_REQUIRE_APP_CHECK',
        'MAILSVC_WRAPPER_PORT',
      ]);
    }
  });

  it('never puts the API key in an error message', () => {
    expect(() => loadWrapperConfig({ MAILSVC_API_KEY: 'short', MAILSVC_WRAPPER_PORT: 'x' })).toThrow(
      /^(?!.*short).*$/s,
    );
  });
});

describe('MAILSVC_ALLOWED_ORIGINS', () => {
  it('takes exact origins, comma-separated, dropping default ports', () => {
    expect(parseOrigins('https://app.example.com, http://localhost:5173 ,https://b.example:443')).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
      'https://b.example',
    ]);
  });

  it.each([
    '*',
    'https://*.example.com',
    'null',
    'app.example.com',
    'https://app.example.com/path',
    'ftp://x.example',
    'https://u:p@x.example',
  ])('refuses %s', (value) => {
    expect(() => parseOrigins(value)).toThrow();
  });
});

describe('the README', () => {
  it('documents every setting', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const key of Object.keys(wrapperSpec)) expect(readme, key).toContain(`\`${key}\``);
  });
});
