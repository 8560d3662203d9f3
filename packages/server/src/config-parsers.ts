// The parsers of config.ts's settings that are the server's own (the shared ones are in
// @mailsvc/contract/settings): durations, DNS servers, an SPF mechanism, database and SMTP URLs,
// domain names. Each throws SettingValueError with what to give instead.
import { type Parser, SettingValueError } from '@mailsvc/contract/settings';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Durations such as `1m,5m,15m,30m,1h,2h` (ms, s, m, h), each at least 100 ms. */
export const durationList: Parser<readonly number[]> = (raw) => {
  const out = raw.split(',').map((item) => {
    const m = /^\s*(\d{1,9})(ms|s|m|h)\s*$/.exec(item);
    const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : Number.NaN;
    if (!(ms >= 100 && ms <= 7 * 24 * 3_600_000))
      throw new SettingValueError(
        `has ${item.trim() || 'an empty item'}; give durations such as 30s, 5m or 2h, 100ms to 7 days`,
      );
    return ms;
  });
  return Object.freeze(out);
};

/** `1.1.1.1, 127.0.0.1:5353, [::1]:53`: what node:dns Resolver.setServers takes. */
export const dnsServerList: Parser<readonly string[]> = (raw) => {
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) {
    const m =
      /^(?:\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?|(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?|([0-9a-fA-F:]+))$/.exec(
        item,
      );
    const port = Number(m?.[2] ?? m?.[4] ?? 53);
    if (!m || !(port >= 1 && port <= 65535))
      throw new SettingValueError(
        `has ${item}; give IP addresses such as 1.1.1.1, 127.0.0.1:5353 or [::1]:53`,
      );
  }
  return Object.freeze(items);
};

/** One SPF mechanism (include:, ip4:, ip6:, a, a:, mx:, exists:) without a qualifier: a pass, no spaces, no `all`. */
export const spfMechanism: Parser<string> = (raw) => {
  const v = raw.trim();
  if (v !== '' && !/^(include:|ip4:|ip6:|a:|mx:|a$|mx$|exists:)[^\s]*$/i.test(v))
    throw new SettingValueError(
      'must be one SPF mechanism such as include:_spf.example.net or ip4:203.0.113.7',
    );
  return v;
};

export const postgresUrl: Parser<string> = (raw) => {
  if (!/^postgres(ql)?:\/\//.test(raw))
    throw new SettingValueError('must be a postgres:// or postgresql:// URL');
  return raw;
};

export const smtpUrl: Parser<string> = (raw) => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new SettingValueError('must be an smtp:// or smtps:// URL');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:')
    throw new SettingValueError('must be an smtp:// or smtps:// URL');
  return raw;
};

export const domainName: Parser<string> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/.test(v))
    throw new SettingValueError('must be a domain name such as mail.example.com');
  return v;
};
