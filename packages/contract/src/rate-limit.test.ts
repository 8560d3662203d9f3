import { describe, expect, it } from 'vitest';
import { clientLimitKey } from './rate-limit.js';

describe('clientLimitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('counts %s as %s', (ip, key) => {
    expect(clientLimitKey(ip)).toBe(key);
  });

  it('counts every address of one /64 as one client, and another /64 apart', () => {
    expect(clientLimitKey('2001:db8:aa:bb::1')).toBe(clientLimitKey('2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
    expect(clientLimitKey('2001:db8:aa:bb::1')).not.toBe(clientLimitKey('2001:db8:aa:bc::1'));
  });
});
