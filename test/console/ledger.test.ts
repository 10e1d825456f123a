/**
 * The ledger and the balance agree whoever moved the credits: every entry point that grants, charges or
 * refunds goes through the one credits service, which writes the ledger. Driven as users drive it, on a
 * real `citewise serve` with its SQLite data directory: the first key (an account opened), searches over
 * /v1 (a charge, and a search with no sources), console sign-ups (the sign-up grant), the operator's grant
 * on the operator page, `citewise credits grant`, `citewise console grant` and `citewise keys create
 * --create-account`. Then, for every account, the ledger's grants minus its charges is the balance.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/cli/config.ts';
import { createSqliteUsageStore } from '../../src/stores/sqlite/accounts.ts';
import type { UsageRecord } from '../../src/stores/account-types.ts';
import { createSqliteStores } from '../../src/stores/sqlite/index.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';

const PASSWORD = 'ledger-password-1';

let dataDir: string;
let serve: ServeProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'citewise-ledger-'));
  serve = await startServe(['--data-dir', dataDir, '--corpus', MANUAL_CORPUS]);
}, 120_000);

afterAll(async () => {
  if (serve.child.exitCode === null) await serve.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A form posted as a browser would (with the session's cookie and CSRF token when signed in). */
function postForm(
  path: string,
  fields: Record<string, string>,
  session?: { cookie: string; csrf: string },
): Promise<Response> {
  return fetch(`${serve.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(session ? { cookie: session.cookie } : {}),
    },
    body: new URLSearchParams({ ...(session ? { _csrf: session.csrf } : {}), ...fields }),
  });
}

/** The session a sign-up (or the operator setup) started, with the CSRF token of its pages. */
async function sessionOf(response: Response): Promise<{ cookie: string; csrf: string }> {
  expect(response.status).toBe(303);
  const cookie = response.headers.getSetCookie()[0]!.split(';')[0]!;
  const page = await (await fetch(`${serve.baseUrl}/keys`, { headers: { cookie } })).text();
  return { cookie, csrf: /<meta name="csrf-token" content="([^"]+)"/.exec(page)![1]! };
}

async function search(key: string, prompt: string): Promise<void> {
  const response = await fetch(`${serve.baseUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function cli(args: readonly string[]): Promise<string> {
  const result = await runCli([...args, '--data-dir', dataDir]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

describe('the ledger and the balance', () => {
  it('agree for every account after each way of granting, charging and refunding', async () => {
    // The first key of serve: an account opened with the free credits.
    const firstKey = serve.firstKey()!;
    await search(firstKey, 'How do I create an API key?');
    await search(firstKey, 'zqxv wqpf jjkx');

    // The operator's setup link: a sign-up (its organization's sign-up grant) that becomes the operator.
    const setupLink = readFileSync(join(dataDir, 'operator-setup-link.txt'), 'utf8').trim();
    const operator = await sessionOf(
      await postForm(new URL(setupLink).pathname, {
        intent: 'sign-up',
        email: 'operator@example.com',
        password: PASSWORD,
      }),
    );
    // A user signing up on the sign-up page.
    await sessionOf(await postForm('/sign-up', { email: 'member@example.com', password: PASSWORD }));
    const orgs = JSON.parse(await cli(['console', 'orgs', '--json'])) as { id: string; name: string }[];
    const memberOrg = orgs.find((o) => o.name === "member's organization")!.id;

    // The operator page's grant, then the CLI's two.
    const granted = await postForm(`/operator/${memberOrg}/grant`, { credits: '25' }, operator);
    expect(granted.status).toBe(303);
    await cli(['credits', 'grant', memberOrg, '5']);
    await cli(['console', 'grant', memberOrg, '7']);
    // A key opening a new account, and a key of the member's organization that searches.
    await cli(['keys', 'create', '--account', 'acct_cli', '--create-account', '--credits', '300']);
    const memberKey = (await cli(['keys', 'create', '--account', memberOrg])).trim().split('\n').at(-1)!;
    await search(memberKey, 'How are credits charged?');

    // Stopping serve writes the usage records it still holds.
    expect(await serve.stop()).toBe(0);
    const path = databasePath(dataDir);
    const usage = createSqliteUsageStore({ path });
    const stores = createSqliteStores({ path });
    try {
      const firstAccount = (await stores.keys.list()).find(
        (k) => k.accountId.startsWith('acct_') && k.accountId !== 'acct_cli',
      )!.accountId;
      const accounts = [...orgs.map((o) => o.id), firstAccount, 'acct_cli'];
      const ledgers = new Map<string, UsageRecord[]>();
      for (const account of accounts) {
        const ledger = await usage.ledger(account);
        ledgers.set(account, ledger);
        const net = ledger.reduce(
          (sum, r) => sum + (r.kind === 'grant' ? r.credits : r.kind === 'charge' ? -r.credits : 0),
          0,
        );
        expect(net, `ledger of ${account}: ${JSON.stringify(ledger)}`).toBe(
          await stores.credits.balance(account),
        );
      }
      const entries = (account: string) =>
        ledgers
          .get(account)!
          .map((r) => `${r.kind} ${r.credits}${r.note ? ` ${r.note}` : ''}`)
          .reverse();
      expect(entries(firstAccount)).toEqual([
        'grant 1000 account opened',
        expect.stringMatching(/^charge 1$/),
        expect.stringMatching(/^(refund|charge) 1$/),
      ]);
      expect(entries(memberOrg)).toEqual([
        'grant 1000 sign-up',
        'grant 25 granted by operator@example.com',
        'grant 5 granted by the operator (CLI)',
        'grant 7 granted by the operator (CLI)',
        'charge 1',
      ]);
      expect(entries('acct_cli')).toEqual(['grant 300 account opened']);
    } finally {
      await usage.close?.();
      await stores.close();
    }
  }, 300_000);
});
