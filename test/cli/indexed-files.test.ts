/**
 * The files of `citewise index` are served at `/docs/.indexed/<id>/<name>` without a key, so they are held
 * to the corpus rules: read by real path, only while that is a regular file inside the source that was
 * indexed. A file or a folder replaced by a symbolic link after indexing (to /etc/passwd, to a secret with the
 * same extension, to another folder) and `..` tricks get 404. Real `citewise index` and `citewise serve`
 * processes on loopback.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-INDEXED-FOLDER';

/** A GET with the path sent exactly as written (fetch would resolve `..` itself). */
function rawGet(baseUrl: string, rawPath: string): Promise<{ status: number; body: string }> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: base.hostname, port: base.port, path: rawPath }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** The served paths of the indexed files, by file name, as the searches that cite them give them. */
const served = new Map<string, string>();
/** The path `/docs/.indexed/<document id>/<name>` a search gave for the file named `name`. */
function indexedPath(name: string): string {
  const found = served.get(name);
  if (found === undefined) throw new Error(`no search cited ${name}`);
  return found;
}

describe('files served from a `citewise index` folder', { timeout: 120_000 }, () => {
  let dir: string;
  let docs: string;
  let outside: string;
  let server: ServeProcess;
  let dataDir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-indexed-files-'));
    docs = join(dir, 'docs');
    outside = join(dir, 'outside');
    for (const folder of [docs, join(docs, 'sub'), outside]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(docs, 'office.md'), '# Office\n\nThe Wi-Fi password is `tide-pool-42`.\n');
    writeFileSync(join(docs, 'leave.md'), '# Leave\n\nParental leave is sixteen weeks.\n');
    writeFileSync(join(docs, 'sub', 'notes.md'), '# Notes\n\nThe pelican mascot is called Percy.\n');
    writeFileSync(join(outside, 'secret.md'), SECRET);
    writeFileSync(join(outside, 'notes.md'), SECRET);
    dataDir = join(dir, 'data');
    const indexed = await runCli(['index', docs, '--data-dir', dataDir]);
    expect(indexed.code, indexed.stderr).toBe(0);
    server = await startServe(['--data-dir', dataDir]);
    // A search loads the index (and shows where its files are served): the attacker's view of the URLs.
    const created = await runCli(['keys', 'create', '--data-dir', dataDir]);
    const key = created.stdout.trim().split('\n').at(-1)!.trim();
    for (const prompt of [
      'What is the Wi-Fi password?',
      'How long is parental leave?',
      'What is the pelican mascot called?',
    ]) {
      const response = await fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt }),
      });
      const { sources } = (await response.json()) as { sources: string[] };
      for (const source of sources) {
        const { pathname } = new URL(source);
        // A document id and the file's name: never the file's path on the server.
        expect(pathname).toMatch(/^\/docs\/\.indexed\/doc_[0-9a-f]{20}\/[a-z]+\.md$/);
        served.set(pathname.split('/').at(-1)!, pathname);
      }
    }
    expect([...served.keys()].sort()).toEqual(['leave.md', 'notes.md', 'office.md']);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves an indexed file without a key while it is the file that was indexed', async () => {
    const response = await rawGet(server.baseUrl, indexedPath('office.md'));
    expect(response.status).toBe(200);
    expect(response.body).toContain('tide-pool-42');
    // Another instance on the same index serves it too, before any search of its own.
    const other = await startServe(['--data-dir', dataDir, '--no-console']);
    try {
      const there = await rawGet(other.baseUrl, indexedPath('office.md'));
      expect(there.status).toBe(200);
      expect(there.body).toContain('tide-pool-42');
    } finally {
      await other.stop();
    }
  });

  it('refuses a file replaced by a symbolic link to /etc/passwd or to a secret outside the folder', async () => {
    const office = join(docs, 'office.md');
    unlinkSync(office);
    symlinkSync('/etc/passwd', office);
    const toPasswd = await rawGet(server.baseUrl, indexedPath('office.md'));
    expect(toPasswd.status).toBe(404);
    expect(toPasswd.body).not.toMatch(/root:/);

    const leave = join(docs, 'leave.md');
    unlinkSync(leave);
    symlinkSync(join(outside, 'secret.md'), leave);
    const toSecret = await rawGet(server.baseUrl, indexedPath('leave.md'));
    expect(toSecret.status).toBe(404);
    expect(toSecret.body).not.toContain(SECRET);
  });

  it('refuses a file whose folder was replaced by a symbolic link to another folder', async () => {
    const sub = join(docs, 'sub');
    expect((await rawGet(server.baseUrl, indexedPath('notes.md'))).status).toBe(200);
    renameSync(sub, join(dir, 'sub-moved'));
    symlinkSync(outside, sub);
    const response = await rawGet(server.baseUrl, indexedPath('notes.md'));
    expect(response.status).toBe(404);
    expect(response.body).not.toContain(SECRET);
  });

  it('refuses `..` tricks below /docs/.indexed/', async () => {
    const id = indexedPath('notes.md').split('/')[3]!;
    for (const path of [
      `/docs/.indexed/${id}/../../../outside/secret.md`,
      `/docs/.indexed/${id}/..%2f..%2f..%2foutside%2fsecret.md`,
      `/docs/.indexed/${id}/%2e%2e/%2e%2e/outside/secret.md`,
      `/docs/.indexed/${id}/${encodeURIComponent(join(outside, 'secret.md'))}`,
      `/docs/.indexed/../outside/secret.md`,
    ]) {
      const response = await rawGet(server.baseUrl, path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body).not.toContain(SECRET);
    }
  });
});
