/**
 * What the console's pages show and send, through the real HTTP stack on 127.0.0.1: the API keys list
 * (name, prefix, creator, created, last used, expiry), a key with an expiry, the playground's context
 * messages and response type reaching the engine, usage (the 30-day chart, per key, a ledger with a
 * grant, a charge and a refund, the CSV), and what owners, admins and members may do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchEngine } from '../../src/engine/index.ts';
import type { Console } from '../../src/console/index.ts';
import { listenConsoleAndApi, memoryConsole } from './memory-console.ts';
import type { ListeningServer } from '../support/loopback-server.ts';
import { fakeSearchProvider, staticAnswerer } from '../../src/testing/index.ts';

const DAY = 86_400_000;
const FAIL = 'please fail this one';
const search = fakeSearchProvider([
  { url: 'https://example.com/keys', title: 'Keys', content: 'Revoke a key on the API keys page.' },
]);
const answerer = staticAnswerer((input) => {
  if (input.prompt === FAIL) throw new Error('the model is down');
  return { answer: 'On the API keys page [1].', sources: ['https://example.com/keys'] };
});
const { inputs } = answerer;

let server: ListeningServer;
let engine: SearchEngine;
let app: Console;
let cookie = '';
let csrf = '';

/** A signed-in browser: its session cookie and the session's CSRF token. */
interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

async function getAs(session: Session, path: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: { cookie: session.cookie },
    redirect: 'manual',
  });
  expect(response.status, path).toBe(200);
  return response.text();
}

function postAs(session: Session, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
  });
}

const get = (path: string) => getAs({ cookie, csrf }, path);
const post = (path: string, fields: Record<string, string>) => postAs({ cookie, csrf }, path, fields);

/** Signs up through a path (`/sign-up` or an invitation link's) and returns the session. */
async function signUpAt(path: string, email: string, intent?: string): Promise<Session> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: 'pages-password-1', ...(intent ? { intent } : {}) }),
  });
  expect(response.status, `sign-up of ${email}`).toBe(303);
  const session = { cookie: response.headers.getSetCookie()[0]!.split(';')[0]!, csrf: '' };
  const page = await getAs(session, '/keys');
  return { ...session, csrf: /<meta name="csrf-token" content="([^"]+)"/.exec(page)![1]! };
}

function searchWith(key: string, prompt: string): Promise<Response> {
  return fetch(`${server.baseUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
}

/** The cells of the table row whose first cell is `first`. */
function row(page: string, first: string): string[] {
  const rows = [...page.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()),
  );
  const found = rows.find((cells) => cells[0] === first);
  expect(found, `a row for ${first}`).toBeDefined();
  return found!;
}

const day = (time: number) => new Date(time).toISOString().slice(0, 10);

beforeAll(async () => {
  ({ engine, app } = memoryConsole({ search, answerer }));
  server = await listenConsoleAndApi(app, engine);
  ({ cookie, csrf } = await signUpAt('/sign-up', 'pages@example.com'));
});

afterAll(async () => {
  await server?.close();
  await app?.close();
  await engine?.close();
});

describe('console pages', () => {
  let key = '';

  it('lists keys with name, prefix, creator, created, last used and expiry; creates one with an expiry', async () => {
    const refused = await post('/keys', { name: 'odd expiry', expires: '12' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Pick an expiry from the list.');

    const created = await post('/keys', { name: 'monthly', expires: '30' });
    expect(created.status).toBe(201);
    key = /data-testid="new-api-key"[^>]*>([^<]+)</.exec(await created.text())![1]!.trim();
    let cells = row(await get('/keys'), 'monthly');
    // Name, Key, Created by, Created, Last used, Expires, Status
    expect(cells.slice(0, 3)).toEqual(['monthly', `${key.slice(0, 8)}…`, 'pages@example.com']);
    expect(cells[3]).toMatch(new RegExp(`^${day(Date.now())} \\d\\d:\\d\\d UTC$`));
    expect(cells[4]).toBe('never');
    expect([day(Date.now() + 30 * DAY), day(Date.now() + 30 * DAY - 60_000)]).toContain(
      cells[5]!.slice(0, 10),
    );
    expect(cells[6]).toBe('active');

    expect((await searchWith(key, 'How do I revoke a key?')).status).toBe(200);
    cells = row(await get('/keys'), 'monthly');
    expect(cells[4]).toMatch(new RegExp(`^${day(Date.now())} \\d\\d:\\d\\d UTC$`));
  });

  it('playground: sends the earlier messages as context and the chosen response type', async () => {
    const keyId = /<option value="([^"]+)" data-prefix/.exec(await get('/playground'))![1]!;
    inputs.length = 0;
    const asked = await post('/playground/ask', {
      key: keyId,
      prompt: 'And how do I revoke it?',
      context: 'How do I create a key?\n\n  Where are keys listed?  ',
      response_type: 'text',
    });
    expect(asked.headers.get('content-type')).toContain('text/event-stream');
    const events = (await asked.text())
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice(6)) as { type: string });
    expect(events.at(-1)!.type).toBe('done');
    expect(inputs).toHaveLength(1);
    expect(inputs[0]!.prompt).toBe('And how do I revoke it?');
    expect(inputs[0]!.responseType).toBe('text');
    expect(inputs[0]!.context.map((m) => m.content)).toEqual([
      'How do I create a key?',
      'Where are keys listed?',
    ]);
  });

  it('usage: 30 days in the chart, per key, and a ledger of grant, charges and a refund, also as CSV', async () => {
    const failed = await searchWith(key, FAIL);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const page = await get('/usage');
    expect(page).toContain('data-testid="available-credits">998<');
    expect(page).toContain('data-testid="searches-30-days">2<');
    const bars = [...page.matchAll(/<rect[\s\S]*?<title>([^<]+)<\/title>/g)].map((m) => m[1]!);
    expect(bars).toHaveLength(30);
    expect(bars.at(-1)).toBe(`${day(Date.now())}: 2 searches, 2 credits`);
    expect(bars[0]).toBe(`${day(Date.now() - 29 * DAY)}: 0 searches, 0 credits`);
    expect(row(page, `monthly (${key.slice(0, 8)}…)`).slice(1, 3)).toEqual(['2', '2']);
    const ledger = [
      ...page.matchAll(/<tr>\s*<td>[^<]+UTC<\/td>\s*<td>(grant|charge|refund)<\/td>\s*<td>([^<]+)</g),
    ];
    expect(ledger.map((m) => [m[1], m[2]])).toEqual([
      ['refund', '0 (1 returned)'],
      ['charge', '-1'],
      ['charge', '-1'],
      ['grant', '+1000'],
    ]);
    const csv = (await get('/usage.csv')).trim().split('\r\n');
    expect(csv.slice(1).map((line) => line.split(',')[1])).toEqual([
      '"refund"',
      '"charge"',
      '"charge"',
      '"grant"',
    ]);
  });
});

describe('roles: owner, admin and member', () => {
  let owner: Session;
  let admin: Session;
  let member: Session;

  /** An invitation link's path, made by `by` for `role`, or the refusing response. */
  async function invite(by: Session, role: string): Promise<string | Response> {
    const response = await postAs(by, '/members', { role });
    if (response.status !== 201) return response;
    return new URL(/data-testid="invite-link"[^>]*>([^<]+)</.exec(await response.text())![1]!.trim())
      .pathname;
  }

  async function join(by: Session, role: string, email: string): Promise<Session> {
    const path = await invite(by, role);
    expect(typeof path, `invitation as ${role}`).toBe('string');
    return signUpAt(path as string, email, 'sign-up');
  }

  async function newKey(session: Session, name: string): Promise<string> {
    const created = await postAs(session, '/keys', { name });
    expect(created.status).toBe(201);
    return /data-testid="new-api-key"[^>]*>([^<]+)</.exec(await created.text())![1]!.trim();
  }

  /** The id of a key (by name) or of a member (by email), from the revoke or remove forms `as` sees. */
  const revokePath = async (as: Session, name: string) =>
    new RegExp(`action="(/keys/[^"/]+/revoke)"(?:(?!</form>)[\\s\\S])*aria-label="Revoke ${name}"`).exec(
      await getAs(as, '/keys'),
    )?.[1];
  const userIds = async (as: Session) =>
    new Map(
      [
        ...(await getAs(as, '/members')).matchAll(
          /<td>([^<]+?)(?: \(you\))?<\/td>\s*<td>(owner|admin|member)</g,
        ),
      ].map((m) => [m[1]!, m[2]!]),
    );

  beforeAll(async () => {
    owner = await signUpAt('/sign-up', 'roles-owner@example.com');
    admin = await join(owner, 'admin', 'roles-admin@example.com');
    member = await join(owner, 'member', 'roles-member@example.com');
  });

  it('gives each joiner the invited role in the inviting organization only', async () => {
    expect(await userIds(owner)).toEqual(
      new Map([
        ['roles-owner@example.com', 'owner'],
        ['roles-admin@example.com', 'admin'],
        ['roles-member@example.com', 'member'],
      ]),
    );
    expect(await getAs(admin, '/keys')).toContain('your role: admin');
    expect(await getAs(member, '/keys')).toContain('your role: member');
    // Joining through an invitation gives no organization (nor free credits) of one's own.
    expect(await getAs(member, '/keys')).not.toContain('Switch organization');
  });

  it('lets a member manage only their own keys, and neither invite nor remove anyone', async () => {
    const ownerKey = await newKey(owner, 'owner-key');
    await newKey(member, 'member-key');
    expect(await revokePath(member, 'owner-key')).toBeUndefined();
    const ownerKeyRevoke = (await revokePath(owner, 'owner-key'))!;
    expect((await postAs(member, ownerKeyRevoke, {})).status).toBe(403);
    expect((await postAs(member, (await revokePath(member, 'member-key'))!, {})).status).toBe(200);

    const membersPage = await getAs(member, '/members');
    expect(membersPage).toContain('Only owners and admins invite and remove members.');
    expect(membersPage).not.toContain('>Remove<');
    expect(((await invite(member, 'member')) as Response).status).toBe(403);
    const removeAdmin =
      /action="(\/members\/[^"/]+\/remove)"(?:(?!<\/form>)[\s\S])*aria-label="Remove roles-admin@example.com"/.exec(
        await getAs(owner, '/members'),
      )![1]!;
    expect((await postAs(member, removeAdmin, {})).status).toBe(403);
    expect(ownerKey).toMatch(/^cw_/);
  });

  it("lets an admin revoke others' keys and invite members and admins, but not owners", async () => {
    await newKey(owner, 'owner-key-2');
    expect((await postAs(admin, (await revokePath(admin, 'owner-key-2'))!, {})).status).toBe(200);
    expect(typeof (await invite(admin, 'admin'))).toBe('string');
    expect(typeof (await invite(admin, 'member'))).toBe('string');
    expect(((await invite(admin, 'owner')) as Response).status).toBe(403);
    const page = await getAs(admin, '/members');
    expect(page).not.toContain('value="owner"');
    // An admin removes a member but not the owner.
    expect(page).toContain('aria-label="Remove roles-member@example.com"');
    expect(page).not.toContain('aria-label="Remove roles-owner@example.com"');
    const ownerForms = await getAs(owner, '/members');
    expect(ownerForms).not.toContain('aria-label="Remove roles-owner@example.com"'); // the last owner stays
  });

  it('lets an owner invite owners and remove an admin, revoking the keys the admin created', async () => {
    expect(typeof (await invite(owner, 'owner'))).toBe('string');
    const adminKey = await newKey(admin, 'admin-key');
    expect((await searchWith(adminKey, 'How do I revoke a key?')).status).toBe(200);
    const removeAdmin =
      /action="(\/members\/[^"/]+\/remove)"(?:(?!<\/form>)[\s\S])*aria-label="Remove roles-admin@example.com"/.exec(
        await getAs(owner, '/members'),
      )![1]!;
    expect((await postAs(owner, removeAdmin, {})).status).toBe(303);
    expect((await searchWith(adminKey, 'How do I revoke a key?')).status).toBe(401);
    expect([...(await userIds(owner)).keys()]).not.toContain('roles-admin@example.com');
  });
});
