import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../ids.js';
import {
  messageIdFromHeader,
  messageIdFromVerp,
  signedMessageIdHeader,
  verpAddress,
} from './signed-references.js';

const key = randomBytes(32);

describe('signed VERP addresses', () => {
  it('name the message they were minted for, within 64 characters of local part', () => {
    const id = newId('msg');
    const address = verpAddress(key, id, 'bounces.example.com');
    expect(address).toMatch(/^bounces\+msg_[0-9A-Z]{26}\.[0-9a-f]{16}@bounces\.example\.com$/);
    expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
    expect(messageIdFromVerp(key, address)).toBe(id);
  });

  it('survive a mail system changing the letter case', () => {
    const id = newId('msg');
    const address = verpAddress(key, id, 'bounces.example.com');
    expect(messageIdFromVerp(key, address.toLowerCase())).toBe(id);
    expect(messageIdFromVerp(key, address.toUpperCase())).toBe(id);
  });

  it('refuse a forged or moved token: a guessed id, another message’s tag, another key, a bare id', () => {
    const a = newId('msg');
    const b = newId('msg');
    const tagOfA = verpAddress(key, a, 'd.example').split('.')[1]!.split('@')[0];
    expect(messageIdFromVerp(key, `bounces+${b}.${tagOfA}@d.example`)).toBeNull();
    expect(messageIdFromVerp(key, `bounces+${a}.0000000000000000@d.example`)).toBeNull();
    expect(messageIdFromVerp(randomBytes(32), verpAddress(key, a, 'd.example'))).toBeNull();
    for (const forged of [
      `bounces+${a}@d.example`,
      `${a}@d.example`,
      `bounces+${a}.${tagOfA}x@d.example`,
      `bounces+${a}.${tagOfA}`,
      'not an address',
      '',
    ]) {
      expect(messageIdFromVerp(key, forged), forged).toBeNull();
    }
  });
});

describe('signed Message-IDs', () => {
  it('name the message they were minted for, with or without angle brackets, in any letter case', () => {
    const id = newId('msg');
    const header = signedMessageIdHeader(key, id, 'mail.example.com');
    expect(header).toMatch(/^<msg_[0-9A-Z]{26}\.[0-9a-f]{16}@mail\.example\.com>$/);
    for (const value of [header, header.slice(1, -1), header.toLowerCase(), ` ${header.toUpperCase()} `])
      expect(messageIdFromHeader(key, value), value).toBe(id);
  });

  it('refuse an id without its tag, another message’s tag, a VERP tag reused, another key', () => {
    const a = newId('msg');
    const b = newId('msg');
    const tagOf = (header: string) => /\.([0-9a-f]{16})@/.exec(header)![1]!;
    const verpTag = /\.([0-9a-f]{16})@/.exec(verpAddress(key, a, 'd.example'))![1]!;
    for (const forged of [
      `<${a}@d.example>`,
      `<${a}.${tagOf(signedMessageIdHeader(key, b, 'd.example'))}@d.example>`,
      `<${a}.${verpTag}@d.example>`,
      `<${a}.0000000000000000@d.example>`,
      '',
      'not a message id',
    ])
      expect(messageIdFromHeader(key, forged), forged).toBeNull();
    expect(messageIdFromHeader(randomBytes(32), signedMessageIdHeader(key, a, 'd.example'))).toBeNull();
  });
});
