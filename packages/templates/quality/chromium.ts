// Debian's chromium, launched headless by playwright-core the one way every quality check and
// screenshot script uses: the flags this machine needs (as root, and without the background
// connections a closed network refuses), and a clear failure when chromium is not installed.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `purpose` names what needs it in the error ("the accessibility suite"). */
export async function launchChromium(purpose: string): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: ${purpose} needs it (on Debian: apt-get install chromium).`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
