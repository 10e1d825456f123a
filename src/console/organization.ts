/**
 * The pages of one organization, for its members: API keys (create, revoke), members (invite, remove,
 * cancel an invitation), usage (and its CSV) and the playground, which searches through the engine with a
 * key of the organization. Owners and admins manage others' keys and the members; members their own keys.
 */
import { auditFrom } from './audit.ts';
import { errorBody, toCitewiseError } from '../errors.ts';
import { revokedNotice } from './revoke.ts';
import { parseSearchRequest } from '../contract/search.ts';
import type { Role } from '../stores/account-types.ts';
import type { KeyRecord } from '../stores/types.ts';
import {
  absoluteLink,
  ConsoleError,
  DAY,
  htmlReply,
  redirect,
  type ConsoleRuntime,
  type OrgContext,
  type Reply,
} from './runtime.ts';
import { cancelInvitationsBy } from './invitation-rules.ts';
import {
  BUDGET_FORM_ERROR,
  budgetOfForm,
  budgetView,
  KEY_EXPIRY_DAYS,
  keysView,
  type KeyRow,
} from './views/keys.ts';
import { describeBudget } from '../stores/budgets.ts';
import { setKeyBudget } from '../engine/admin.ts';
import { membersView } from './views/members.ts';
import { playgroundView } from './views/playground.ts';
import { ledgerCsv, usageView, type Day } from './views/usage.ts';

/** Days the usage page charts. */
const USAGE_DAYS = 30;
/** Ledger entries the usage page lists (the CSV has them all). */
const LEDGER_ENTRIES_SHOWN = 50;

const canManageOthers = (role: Role) => role === 'owner' || role === 'admin';

/** A page shown as asked for (not after a form). */
const SHOWN = { status: 200 } as const;

// ---------------------------------------------------------------------------------------------------
// API keys

/** `GET /keys` (and the page again after a create, with the new key or the error). */
export async function keysPage(
  rt: ConsoleRuntime,
  org: OrgContext,
  outcome: {
    status: number;
    created?: { key: string; record: KeyRecord };
    error?: string;
    notice?: string;
  } = SHOWN,
): Promise<Reply> {
  const id = org.organization.id;
  await rt.recorder.flush();
  const [records, creators, members, perKey, available] = await Promise.all([
    rt.keys.list(id),
    rt.accounts.keyCreators(id),
    rt.accounts.listMembers(id),
    rt.usage.perKey(id, 0),
    rt.credits.balance(id),
  ]);
  const emails = new Map(members.map((m) => [m.userId, m.email]));
  const lastUsed = new Map(perKey.map((k) => [k.keyId, k.lastUsedAt]));
  const now = Date.now();
  const rows = [...records].reverse().map((record): KeyRow => {
    const creator = creators.get(record.id);
    const status = record.revokedAt
      ? 'revoked'
      : record.expiresAt !== null && record.expiresAt <= now
        ? 'expired'
        : 'active';
    return {
      record,
      status,
      createdBy: creator ? (emails.get(creator) ?? 'former member') : 'CLI',
      lastUsedAt: lastUsed.get(record.id),
      mayRevoke: status === 'active' && (canManageOthers(org.membership.role) || creator === org.user.id),
    };
  });
  return htmlReply(
    outcome.status,
    keysView(rt, org, {
      available,
      rows,
      created: outcome.created,
      error: outcome.error,
      notice: outcome.notice,
    }),
  );
}

/** `POST /keys`: a named key, optionally expiring, recorded as created by this user. */
export async function createKey(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const name = (org.form.get('name') ?? '').trim();
  if (!name || name.length > 100)
    return keysPage(rt, org, { status: 400, error: 'Give the key a name of 1–100 characters.' });
  const days = org.form.get('expires') ?? '';
  if (days !== '' && !(KEY_EXPIRY_DAYS as readonly string[]).includes(days))
    return keysPage(rt, org, { status: 400, error: 'Pick an expiry from the list.' });
  const budget = budgetOfForm(org.form);
  if (budget === 'invalid') return keysPage(rt, org, { status: 400, error: BUDGET_FORM_ERROR });
  const created = await rt.keys.create({
    accountId: org.organization.id,
    name,
    expiresAt: days ? Date.now() + Number(days) * DAY : null,
    budget,
  });
  await rt.accounts.recordKeyCreator({
    keyId: created.record.id,
    organizationId: org.organization.id,
    userId: org.user.id,
  });
  rt.logger?.info(
    { event: 'console.key_created', keyId: created.record.id, userId: org.user.id },
    'console: key created',
  );
  await auditFrom(rt, org, {
    action: 'key_created',
    organizationId: org.organization.id,
    target: created.record.id,
    detail: name + (budget ? `, budget ${describeBudget(budget)}` : ''),
  });
  return keysPage(rt, org, { status: 201, created });
}

/** The key `keyId` of this organization, if the viewer may manage it (one's own, or any for admins). */
async function managedKey(
  rt: ConsoleRuntime,
  org: OrgContext,
  keyId: string,
  action: string,
): Promise<KeyRecord> {
  const record = (await rt.keys.list(org.organization.id)).find((k) => k.id === keyId);
  if (!record) throw new ConsoleError(404, 'No such key in this organization.');
  const creator = (await rt.accounts.keyCreators(org.organization.id)).get(keyId);
  if (!canManageOthers(org.membership.role) && creator !== org.user.id) {
    throw new ConsoleError(403, `Only owners and admins can ${action} keys created by others.`);
  }
  return record;
}

/** `GET /keys/<id>/budget`: the form that sets, changes or removes a key's budget. */
export async function budgetPage(rt: ConsoleRuntime, org: OrgContext, keyId: string): Promise<Reply> {
  const record = await managedKey(rt, org, keyId, 'change the budget of');
  return htmlReply(200, budgetView(rt, org, record));
}

/** `POST /keys/<id>/budget`: sets, changes or (empty) removes a key's budget. */
export async function setBudget(rt: ConsoleRuntime, org: OrgContext, keyId: string): Promise<Reply> {
  const record = await managedKey(rt, org, keyId, 'change the budget of');
  const budget = budgetOfForm(org.form);
  if (budget === 'invalid') return htmlReply(400, budgetView(rt, org, record, BUDGET_FORM_ERROR));
  await setKeyBudget(rt.keys, keyId, budget);
  rt.logger?.info({ event: 'console.key_budget', keyId, userId: org.user.id }, 'console: key budget set');
  await auditFrom(rt, org, {
    action: 'budget_set',
    organizationId: org.organization.id,
    target: keyId,
    detail: budget ? describeBudget(budget) : 'removed',
  });
  const name = record.name ?? record.prefix;
  const notice = budget
    ? `The budget of ${name} is now ${describeBudget(budget)}.`
    : `${name} has no budget now: it spends the organization's credits.`;
  return keysPage(rt, org, { status: 200, notice });
}

/** `POST /keys/<id>/revoke`: one's own key, or anyone's for owners and admins. */
export async function revokeKey(rt: ConsoleRuntime, org: OrgContext, keyId: string): Promise<Reply> {
  const record = await managedKey(rt, org, keyId, 'revoke');
  await rt.keys.revoke(keyId);
  rt.logger?.info({ event: 'console.key_revoked', keyId, userId: org.user.id }, 'console: key revoked');
  await auditFrom(rt, org, {
    action: 'key_revoked',
    organizationId: org.organization.id,
    target: keyId,
    detail: record.name ?? record.prefix,
  });
  return keysPage(rt, org, { status: 200, notice: revokedNotice(record) });
}

// ---------------------------------------------------------------------------------------------------
// Members

/** `GET /members` (and the page again after an invitation, with its link or the error). */
export async function membersPage(
  rt: ConsoleRuntime,
  org: OrgContext,
  outcome: { status: number; inviteLink?: string; error?: string } = SHOWN,
): Promise<Reply> {
  const manage = canManageOthers(org.membership.role);
  const [members, invitations] = await Promise.all([
    rt.accounts.listMembers(org.organization.id),
    manage ? rt.accounts.listInvitations(org.organization.id) : Promise.resolve([]),
  ]);
  const owners = members.filter((m) => m.role === 'owner').length;
  const listed = members.map((m) => ({
    ...m,
    removable:
      manage &&
      m.userId !== org.user.id &&
      (m.role !== 'owner' || org.membership.role === 'owner') &&
      !(m.role === 'owner' && owners <= 1),
  }));
  return htmlReply(
    outcome.status,
    membersView(rt, org, {
      members: listed,
      manage,
      invitations,
      inviteLink: outcome.inviteLink,
      error: outcome.error,
    }),
  );
}

/** `POST /members`: an invitation link with a role (owners alone invite owners). */
export async function invite(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  if (!canManageOthers(org.membership.role))
    throw new ConsoleError(403, 'Only owners and admins can invite members.');
  const role = org.form.get('role') ?? 'member';
  if (!['owner', 'admin', 'member'].includes(role))
    return membersPage(rt, org, { status: 400, error: 'Pick a role from the list.' });
  if (role === 'owner' && org.membership.role !== 'owner')
    throw new ConsoleError(403, 'Only owners can invite owners.');
  const { token } = await rt.accounts.createInvitation({
    organizationId: org.organization.id,
    role: role as Role,
    createdBy: org.user.id,
    expiresAt: Date.now() + rt.invitationTtlMs,
  });
  await auditFrom(rt, org, {
    action: 'member_invited',
    organizationId: org.organization.id,
    detail: `invitation link as ${role}`,
  });
  return membersPage(rt, org, { status: 201, inviteLink: absoluteLink(rt, org, `/invite/${token}`) });
}

/** `POST /members/<id>/remove`: revokes the keys the member created, then the membership. */
export async function removeMember(rt: ConsoleRuntime, org: OrgContext, userId: string): Promise<Reply> {
  if (!canManageOthers(org.membership.role))
    throw new ConsoleError(403, 'Only owners and admins can remove members.');
  const target = await rt.accounts.getMembership(org.organization.id, userId);
  if (!target) throw new ConsoleError(404, 'No such member.');
  if (target.role === 'owner' && org.membership.role !== 'owner')
    throw new ConsoleError(403, 'Only owners can remove owners.');
  const members = await rt.accounts.listMembers(org.organization.id);
  const owners = members.filter((m) => m.role === 'owner');
  if (target.role === 'owner' && owners.length <= 1)
    throw new ConsoleError(409, 'An organization keeps at least one owner.');
  // Their keys stop working first: a removed member must not keep spending the organization's credits.
  const creators = await rt.accounts.keyCreators(org.organization.id);
  for (const [keyId, creator] of creators) if (creator === userId) await rt.keys.revoke(keyId);
  await rt.accounts.removeMembership(org.organization.id, userId);
  // Or they could come back through a link they made (created after this, it is refused when used).
  await cancelInvitationsBy(rt.accounts, org.organization.id, userId);
  rt.logger?.info({ event: 'console.member_removed', userId, by: org.user.id }, 'console: member removed');
  await auditFrom(rt, org, {
    action: 'member_removed',
    organizationId: org.organization.id,
    target: members.find((m) => m.userId === userId)?.email ?? userId,
    detail: `${target.role}; their keys revoked`,
  });
  return redirect(rt, '/members');
}

/** `POST /invitations/<id>/delete`. */
export async function deleteInvitation(
  rt: ConsoleRuntime,
  org: OrgContext,
  invitationId: string,
): Promise<Reply> {
  if (!canManageOthers(org.membership.role))
    throw new ConsoleError(403, 'Only owners and admins manage invitations.');
  await rt.accounts.deleteInvitation(org.organization.id, invitationId);
  return redirect(rt, '/members');
}

// ---------------------------------------------------------------------------------------------------
// Usage

/** `GET /usage`: the last 30 days (UTC), per key, and the newest ledger entries. */
export async function usagePage(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const id = org.organization.id;
  await rt.recorder.flush();
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = today - (USAGE_DAYS - 1) * DAY;
  const [daily, perKey, ledger, keyRecords, available] = await Promise.all([
    rt.usage.daily(id, since, today + DAY),
    rt.usage.perKey(id, since),
    rt.usage.ledger(id, LEDGER_ENTRIES_SHOWN),
    rt.keys.list(id),
    rt.credits.balance(id),
  ]);
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const days = Array.from({ length: USAGE_DAYS }, (_, i): Day => {
    const day = new Date(since + i * DAY).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, searches: 0, credits: 0 };
  });
  const keyNames = new Map(keyRecords.map((k) => [k.id, `${k.name ?? '—'} (${k.prefix}…)`]));
  return htmlReply(200, usageView(rt, org, { available, days, perKey, ledger, keyNames }));
}

/** `GET /usage.csv`: the whole ledger. */
export async function usageCsv(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  await rt.recorder.flush();
  const [ledger, keyRecords] = await Promise.all([
    rt.usage.ledger(org.organization.id),
    rt.keys.list(org.organization.id),
  ]);
  return {
    status: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="citewise-usage-${org.organization.id}.csv"`,
      'cache-control': 'no-store',
    },
    body: ledgerCsv(ledger, new Map(keyRecords.map((k) => [k.id, k.name ?? '']))),
  };
}

// ---------------------------------------------------------------------------------------------------
// Playground

export function activeKeys(records: readonly KeyRecord[]): KeyRecord[] {
  const now = Date.now();
  return records.filter((k) => k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now));
}

/** `GET /playground`. */
export async function playgroundPage(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  return htmlReply(
    200,
    playgroundView(rt, org, activeKeys(await rt.keys.list(org.organization.id)), rt.publicUrl),
  );
}

/** `POST /playground/ask`: a search as the selected key, the engine's events as server-sent events. */
export async function ask(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const keyId = org.form.get('key') ?? '';
  const record = activeKeys(await rt.keys.list(org.organization.id)).find((k) => k.id === keyId);
  if (!record) throw new ConsoleError(400, 'Pick an active key of this organization.');
  const context = (org.form.get('context') ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((content) => ({ role: 'user' as const, content }));
  const body = {
    prompt: org.form.get('prompt') ?? '',
    ...(context.length ? { context } : {}),
    response_type: org.form.get('response_type') ?? 'markdown',
    // The playground's "Sources": only the organization's own documents (/v1/documents).
    ...(org.form.get('documents') === 'own' ? { documents: 'own' } : {}),
  };
  const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;
  const headers = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' };
  let events: AsyncIterable<unknown>;
  try {
    parseSearchRequest(body);
    events = await rt.engine.searchStream(body as never, {
      apiKey: rt.keys.mintPlaygroundKey(record),
      signal: org.request.signal,
    });
  } catch (thrown) {
    const error = toCitewiseError(thrown);
    return {
      status: 200,
      headers,
      body: sse({ type: 'error', status: error.status, error: errorBody(error).error }),
    };
  }
  async function* stream(): AsyncGenerator<string> {
    for await (const event of events) yield sse(event);
  }
  return { status: 200, headers, body: stream() };
}
