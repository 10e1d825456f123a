import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT as FETCHER_USER_AGENT } from '../../src/pipeline/fetch/index.ts';
import { DEFAULT_USER_AGENT as PROVIDER_USER_AGENT } from '../../src/pipeline/search/providers/http.ts';
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
    expect((createOpenApiDocument()['info'] as { version: string }).version).toBe(pkg.version);
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });
});
