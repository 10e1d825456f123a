/**
 * Debian's Chromium driven by playwright-core (no browser download), and the axe-core check the
 * console's pages must pass.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where `.ci/run` installs Chromium (apt). */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether Chromium is installed. Without it the browser suites skip with a printed reason on a developer's
 * machine, and fail under CI (`.ci/run` installs it).
 */
export function chromiumOrSkip(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const reason = `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH); skipping the browser tests`;
  if (process.env['CI'] && /^(1|true)$/i.test(process.env['CI']))
    throw new Error(`${reason} — not allowed under CI`);
  console.warn(reason);
  return false;
}

/** Launches headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A violation axe-core reports. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core on the page (evaluated through the DevTools protocol, which the page's CSP does not
 * govern) and returns its serious and critical violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
