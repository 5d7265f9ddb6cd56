// The one way tests start a browser: headless Debian Chromium through playwright-core, in a
// throwaway profile. No browser download: CHROMIUM_BIN or /usr/bin/chromium.
import { chromium, type BrowserContext } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Runs `work` in a fresh headless Chromium context, closed and its profile removed afterwards. */
export async function withChromium<T>(work: (context: BrowserContext) => Promise<T>, viewport = { width: 1000, height: 800 }): Promise<T> {
  const profile = await mkdtemp(join(tmpdir(), 'catalog-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, headless: true, viewport });
  try {
    return await work(context);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}
