/**
 * The console manual shows every page: each screenshot the browser journey takes (docs/images/console-*.png,
 * committed) is shown in docs/console.md, and each page the journey checks has its screenshot.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manual = readFileSync(`${ROOT}docs/console.md`, 'utf8');
const images = readdirSync(`${ROOT}docs/images`).filter((name) => /^console-.+\.png$/.test(name));
const journey = readFileSync(`${ROOT}test/console/journey.test.ts`, 'utf8');
/** Page names given to `checkPage(page, 'name')` in the journey (which screenshots them). */
const journeyPages = [...journey.matchAll(/checkPage\(\w+, '([a-z-]+)'\)/g)].map((m) => m[1]!);

describe('console screenshots', () => {
  it('are all shown in docs/console.md', () => {
    expect(images.length).toBeGreaterThanOrEqual(10);
    for (const image of images) expect(manual, image).toContain(`](images/${image})`);
  });

  it('exist for every page the journey visits', () => {
    expect(journeyPages.length).toBeGreaterThanOrEqual(10);
    for (const name of journeyPages) expect(images).toContain(`console-${name}.png`);
  });
});
