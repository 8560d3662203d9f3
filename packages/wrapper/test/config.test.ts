import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnonymousAccessError,
  loadWrapperConfig,
  localWrapperConfig,
  parseOrigins,
  WrapperConfigError,
  wrapperSpec,
} from '../src/config.js';
import { startWrapperServer } from '../src/server.js';

describe('loadWrapperConfig', () => {
  it('requires MAILSVC_API_KEY and fills the defaults', () => {
    expect(() => loadWrapperConfig({})).toThrow(/MAILSVC_API_KEY is required/);
    const c = loadWrapperConfig({ MAILSVC_API_KEY: 'msk_abc_secret' });
    expect(c).toMatchObject({
      MAILSVC_CORE_URL: 'http://127.0.0.1:3000',
      MAILSVC_ALLOWED_ORIGINS: [],
      MAILSVC_REQUIRE_APP_CHECK: false,
      MAILSVC_APP_CHECK_CONSUME: 'security',
      MAILSVC_ALLOW_ANONYMOUS: false,
      MAILSVC_ALLOW_SENDER_OVERRIDE: false,
      MAILSVC_ALLOWED_LINK_HOSTS: [],
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

const KEY = { MAILSVC_API_KEY: 'msk_abc_secret' };

describe('anonymous callers on a reachable address', () => {
  it.each(['127.0.0.1', '127.0.0.53', '::1', 'localhost'])(
    'are accepted on the loopback address %s',
    (host) => {
      expect(loadWrapperConfig({ ...KEY, MAILSVC_WRAPPER_HOST: host }).MAILSVC_WRAPPER_HOST).toBe(host);
    },
  );

  it.each(['0.0.0.0', '::', '10.0.0.5', 'wrapper.internal'])(
    'make it refuse to start on %s, naming MAILSVC_REQUIRE_APP_CHECK and MAILSVC_ALLOW_ANONYMOUS',
    (host) => {
      try {
        loadWrapperConfig({ ...KEY, MAILSVC_WRAPPER_HOST: host });
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(AnonymousAccessError);
        expect(err).toBeInstanceOf(WrapperConfigError);
        const message = (err as Error).message;
        expect(message).toContain('MAILSVC_REQUIRE_APP_CHECK=true');
        expect(message).toContain('MAILSVC_ALLOW_ANONYMOUS=true');
        expect(message).toContain(host);
      }
    },
  );

  it('are allowed on any address once App Check is required or MAILSVC_ALLOW_ANONYMOUS=true', () => {
    expect(() =>
      loadWrapperConfig({ ...KEY, MAILSVC_WRAPPER_HOST: '0.0.0.0', MAILSVC_REQUIRE_APP_CHECK: 'true' }),
    ).not.toThrow();
    expect(() =>
      loadWrapperConfig({ ...KEY, MAILSVC_WRAPPER_HOST: '0.0.0.0', MAILSVC_ALLOW_ANONYMOUS: 'true' }),
    ).not.toThrow();
  });

  it('make Firebase refuse whatever the host, unless App Check is required or anonymous callers allowed', () => {
    expect(() => loadWrapperConfig(KEY, { runtime: 'firebase' })).toThrow(AnonymousAccessError);
    expect(() => loadWrapperConfig(KEY, { runtime: 'firebase' })).toThrow(/Firebase/);
    expect(() =>
      loadWrapperConfig({ ...KEY, MAILSVC_ALLOW_ANONYMOUS: 'true' }, { runtime: 'firebase' }),
    ).not.toThrow();
    expect(() =>
      loadWrapperConfig({ ...KEY, MAILSVC_REQUIRE_APP_CHECK: 'true' }, { runtime: 'firebase' }),
    ).not.toThrow();
  });

  it('make startWrapperServer refuse a non-loopback host given as an option', async () => {
    const config = loadWrapperConfig(KEY);
    await expect(startWrapperServer({ config, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      AnonymousAccessError,
    );
  });

  it('report the other bad settings first, as a plain configuration error', () => {
    const err = (() => {
      try {
        loadWrapperConfig({ ...KEY, MAILSVC_WRAPPER_HOST: '0.0.0.0', MAILSVC_WRAPPER_PORT: 'x' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(WrapperConfigError);
    expect(err).not.toBeInstanceOf(AnonymousAccessError);
  });
});

describe('localWrapperConfig (mailsvc start)', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ['MAILSVC_ALLOW_ANONYMOUS', 'MAILSVC_REQUIRE_APP_CHECK']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  const local = (host: string) =>
    localWrapperConfig({ coreUrl: 'http://127.0.0.1:3000', apiKey: 'msk_abc_secret', port: 0, host });

  it('starts on the core HOST when it is loopback', () => {
    delete process.env.MAILSVC_ALLOW_ANONYMOUS;
    delete process.env.MAILSVC_REQUIRE_APP_CHECK;
    expect(local('127.0.0.1').MAILSVC_WRAPPER_HOST).toBe('127.0.0.1');
  });

  it('refuses a non-loopback core HOST unless MAILSVC_ALLOW_ANONYMOUS or MAILSVC_REQUIRE_APP_CHECK is set', () => {
    delete process.env.MAILSVC_ALLOW_ANONYMOUS;
    delete process.env.MAILSVC_REQUIRE_APP_CHECK;
    expect(() => local('0.0.0.0')).toThrow(AnonymousAccessError);
    process.env.MAILSVC_ALLOW_ANONYMOUS = 'true';
    expect(local('0.0.0.0').MAILSVC_WRAPPER_HOST).toBe('0.0.0.0');
    delete process.env.MAILSVC_ALLOW_ANONYMOUS;
    process.env.MAILSVC_REQUIRE_APP_CHECK = 'true';
    expect(local('0.0.0.0').MAILSVC_WRAPPER_HOST).toBe('0.0.0.0');
  });
});

describe('MAILSVC_APP_CHECK_CONSUME', () => {
  it.each([
    ['security', 'security'],
    ['true', true],
    ['1', true],
    ['false', false],
    ['no', false],
  ] as const)('takes %s', (raw, value) => {
    expect(loadWrapperConfig({ ...KEY, MAILSVC_APP_CHECK_CONSUME: raw }).MAILSVC_APP_CHECK_CONSUME).toBe(
      value,
    );
  });

  it('refuses anything else, naming the values', () => {
    expect(() => loadWrapperConfig({ ...KEY, MAILSVC_APP_CHECK_CONSUME: 'sometimes' })).toThrow(
      /MAILSVC_APP_CHECK_CONSUME must be security, true or false/,
    );
  });
});

describe('MAILSVC_REDIS_URL', () => {
  it('takes a redis:// or rediss:// URL', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://:pw@cache.example:6380/2'])
      expect(loadWrapperConfig({ ...KEY, MAILSVC_REDIS_URL: url }).MAILSVC_REDIS_URL).toBe(url);
  });

  it('refuses another URL without repeating it (it may hold a password)', () => {
    try {
      loadWrapperConfig({ ...KEY, MAILSVC_REDIS_URL: 'http://:topsecret@cache.example' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('MAILSVC_REDIS_URL');
      expect((err as Error).message).not.toContain('topsecret');
    }
  });

  it('is a secret in the settings table', () => {
    expect(wrapperSpec.MAILSVC_REDIS_URL.secret).toBe(true);
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
