/**
 * Chromium for tests that need a real browser (the listener page, the SDK's browser bundle): Debian's chromium
 * driven by playwright-core, at CHROMIUM_PATH (default /usr/bin/chromium). No sandbox: tests run as root in CI
 * containers, where chromium refuses to start sandboxed.
 */
import { chromium, type Browser } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}
