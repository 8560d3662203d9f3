import { describe, expect, it } from 'vitest';
import { FRAME_SANDBOX, frameDocument } from './preview-frame.js';

const INJECTED = '<base target="_blank"><meta name="referrer" content="no-referrer">';

describe('the preview frame', () => {
  it('puts the base target and the referrer policy first in the head, wherever the document starts it', () => {
    expect(
      frameDocument('<!DOCTYPE html><html lang="en"><head><title>t</title></head><body>b</body></html>'),
    ).toBe(`<!DOCTYPE html><html lang="en"><head>${INJECTED}<title>t</title></head><body>b</body></html>`);
    expect(frameDocument('<HEAD data-x="1"><title>t</title>')).toBe(
      `<HEAD data-x="1">${INJECTED}<title>t</title>`,
    );
    expect(frameDocument('<html><body><a href="https://a.test">a</a></body></html>')).toBe(
      `<html><head>${INJECTED}</head><body><a href="https://a.test">a</a></body></html>`,
    );
    expect(frameDocument('<p>a fragment</p>')).toBe(`${INJECTED}<p>a fragment</p>`);
    // <header> is not <head>.
    expect(frameDocument('<header>h</header>')).toBe(`${INJECTED}<header>h</header>`);
  });

  it('is sandboxed to open popups only: no scripts, no same origin, no forms, no top navigation', () => {
    expect(FRAME_SANDBOX.split(' ').sort()).toEqual(['allow-popups', 'allow-popups-to-escape-sandbox']);
  });
});
