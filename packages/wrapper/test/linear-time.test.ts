// Request data is handled in time linear in its size, before any limit applies: a hostile input
// must cost about what a benign one of the same length costs. Measured as a ratio in the same run,
// not as a time, so a loaded machine slows both sides alike. The minimum of a few interleaved runs
// drops pauses (GC, the other core's work) that hit one run; the old path code was 600–800× slower
// on this input through the router (4,000× for routePathOf alone), far above the bound.
import { afterAll, describe, expect, it } from 'vitest';
import { routePathOf } from '../src/router.js';
import { call, testRouter } from './helpers.js';

const MAX_RATIO = 20;
const RUNS = 5;

const { router } = testRouter({ MAILSVC_CORE_URL: 'http://127.0.0.1:1' });
afterAll(() => router.close());

async function fastest(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t);
}

/** The ratio of the fastest hostile run to the fastest benign run, interleaved. */
async function ratio(hostile: () => Promise<unknown>, benign: () => Promise<unknown>): Promise<number> {
  await hostile();
  await benign();
  let h = Number.POSITIVE_INFINITY;
  let b = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    h = Math.min(h, await fastest(hostile));
    b = Math.min(b, await fastest(benign));
  }
  return h / b;
}

describe('the request path', () => {
  it('strips trailing slashes in linear time: 15,000 slashes then a letter cost what 15,000 letters cost', async () => {
    const n = 15_000;
    const hostile = `/auth/login-code${'/'.repeat(n)}x`;
    const benign = `/auth/login-code${'a'.repeat(n)}x`;
    expect(hostile.length).toBe(benign.length);
    const r = await ratio(
      () => call(router, hostile, { body: {} }),
      () => call(router, benign, { body: {} }),
    );
    expect(r).toBeLessThan(MAX_RATIO);
  });

  it('strips trailing slashes and keeps the root', () => {
    expect(routePathOf('/auth/login-code///')).toBe('/auth/login-code');
    expect(routePathOf('/auth/login-code/?x=1')).toBe('/auth/login-code');
    expect(routePathOf('///')).toBe('/');
    expect(routePathOf('/')).toBe('/');
    expect(routePathOf('')).toBe('/');
    expect(routePathOf('/demo-mailsvc/europe-west2/mailsvc/auth/login-code/')).toBe('/auth/login-code');
    expect(routePathOf('/demo-mailsvc/europe-west2/mailsvc')).toBe('/');
  });
});

describe('links in template data', () => {
  // The catalogue's URL pattern is run on every link before anything is sent; it backtracked
  // quadratically on a long URL ending in a space until packages/templates made it linear.
  it('are checked in linear time: a 30 KB URL ending in a space costs what a 30 KB URL costs', async () => {
    const n = 30_000;
    const hostile = `https://${'a'.repeat(n)} `;
    const benign = `https://${'a'.repeat(n)}b`;
    const send = (url: string) => () =>
      call(router, '/auth/magic-link', { body: { to: 'jane@example.com', data: { actionButton: { url } } } });
    const first = await send(hostile)();
    expect([first.status, first.json().error.code]).toEqual([400, 'invalid_template_data']);
    expect(await ratio(send(hostile), send(benign))).toBeLessThan(MAX_RATIO);
  });
});
