import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (playwright-core downloads none); `CHROMIUM_PATH` points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Starts `app` on an ephemeral loopback port and a headless chromium for it (as root: no
 * sandbox). Close the browser before the app: its keep-alive connections hold the server open.
 * @returns the app's base URL (`http://127.0.0.1:PORT`) and the browser
 */
export async function serveToBrowser(app: INestApplication): Promise<{ base: string; browser: Browser }> {
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  return { base, browser };
}

/**
 * For a describe block: serves the app of `app()` to a headless chromium before its tests and
 * closes the browser after them (before the app closes). @returns the block's browser and base URL
 */
export function useBrowser(app: () => INestApplication): { browser: () => Browser; base: () => string } {
  let served: { base: string; browser: Browser } | undefined;
  beforeAll(async () => {
    served = await serveToBrowser(app());
  });
  afterAll(async () => {
    await served?.browser.close();
  });
  const get = () => {
    if (!served) throw new Error('useBrowser: the browser starts in beforeAll');
    return served;
  };
  return { browser: () => get().browser, base: () => get().base };
}
