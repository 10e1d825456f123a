import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT as FETCHER_USER_AGENT } from '../../src/pipeline/fetch/index.ts';
import { DEFAULT_USER_AGENT as PROVIDER_USER_AGENT } from '../../src/pipeline/search/providers/http-options.ts';
import { PACKAGE_NAME, PACKAGE_VERSION, USER_AGENT } from '../../src/package-info.ts';
import { createOpenApiDocument } from '../../src/http/openapi.ts';
import { runCli } from '../support/cli.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

describe('one name and version, from package.json', () => {
  it('builds the one User-Agent from package.json, used by the fetcher and the search providers', () => {
    expect(PACKAGE_NAME).toBe(pkg.name);
    expect(PACKAGE_VERSION).toBe(pkg.version);
    expect(USER_AGENT.startsWith(`${pkg.name}/${pkg.version} `)).toBe(true);
    expect(FETCHER_USER_AGENT).toBe(USER_AGENT);
    expect(PROVIDER_USER_AGENT).toBe(USER_AGENT);
  });

  it('shows the package version in the OpenAPI document and citewise --version', async () => {
    const info = createOpenApiDocument()['info'] as { title: string; version: string };
    expect(info).toMatchObject({ title: pkg.name, version: pkg.version });
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it('the README and the manual never write the version into a User-Agent (it changes with each release)', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const markdown = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return markdown(path);
        return entry.name.endsWith('.md') ? [path] : [];
      });
    const written = ['README.md', ...markdown('docs')].filter((path) =>
      /\bcitewise\/\d+\.\d+\.\d+/.test(readFileSync(join(root, path), 'utf8')),
    );
    expect(written).toEqual([]);
  });
});
