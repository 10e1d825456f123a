/**
 * The instance operator: the operator page (every organization, grants, suspensions, the maintenance
 * switch) and the maintenance switch shared by every instance, read from the account store every few
 * seconds so that a toggle here, on another instance or by the CLI reaches them all.
 */
import { auditFrom } from './audit.ts';
import type { SearchEngine } from '../engine/index.ts';
import { otherCreditAccounts } from './credit-accounts.ts';
import { createResetLink } from './password-reset.ts';
import type { Logger } from '../engine/options.ts';
import type { AccountStore, UserRecord } from '../stores/account-types.ts';
import {
  absoluteLink,
  ConsoleError,
  htmlReply,
  redirect,
  type ConsoleRuntime,
  type Context,
  type Reply,
} from './runtime.ts';
import { csrfToken } from './security.ts';
import { operatorView } from './views/operator.ts';

/** The instance setting of the maintenance switch (`on` or `off`). */
const MAINTENANCE_SETTING = 'maintenance';

/** The maintenance switch of every instance. */
export interface MaintenanceSync {
  /** Switches it here and for the other instances (they read it within `pollMs`). */
  set(on: boolean): Promise<void>;
  /** Stops reading it. */
  close(): void;
}

/**
 * Reads the maintenance switch at start and every `pollMs`. At start only "on" is applied: a stored "off"
 * must not override `--maintenance`.
 */
export function createMaintenanceSync(
  engine: SearchEngine,
  accounts: AccountStore,
  pollMs: number,
  logger: Logger | undefined,
): MaintenanceSync {
  let last: string | null | undefined;
  const poll = async () => {
    try {
      const value = await accounts.getSetting(MAINTENANCE_SETTING);
      const changed = last === undefined ? value === 'on' : value !== last && value !== null;
      if (changed) engine.setMaintenance(value === 'on');
      last = value;
    } catch (error) {
      logger?.warn({ err: error }, 'console: could not read settings');
    }
  };
  void poll();
  const poller = setInterval(() => void poll(), pollMs);
  poller.unref();
  return {
    async set(on) {
      await accounts.setSetting(MAINTENANCE_SETTING, on ? 'on' : 'off');
      engine.setMaintenance(on);
      last = on ? 'on' : 'off';
    },
    close: () => clearInterval(poller),
  };
}

/** Largest grant of one form. */
const MAX_GRANT = 1e12;

/** `/operator` and its forms: the operator alone. */
export async function operator(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
  path: string,
  get: boolean,
): Promise<Reply> {
  if (!user.operator) throw new ConsoleError(403, 'Only the instance operator can open this page.');
  // A one-time password reset link, shown once on the page that answers the form.
  let reset: { email: string; url: string } | undefined;
  if (!get && path === '/operator/reset-link') reset = await resetLinkFor(rt, context, user);
  else if (!get) {
    await operatorAction(rt, context, user, path);
    return redirect(rt, '/operator');
  } else if (path !== '/operator') throw new ConsoleError(404, 'This page does not exist.');
  const organizations = await rt.accounts.listOrganizations();
  const rows = await Promise.all(
    organizations.map(async (o) => ({
      organization: o,
      credits: await rt.credits.balance(o.id),
      members: (await rt.accounts.listMembers(o.id)).length,
    })),
  );
  const maintenance = (await rt.accounts.getSetting(MAINTENANCE_SETTING)) === 'on';
  const others = await otherCreditAccounts(rt.keys, rt.credits, new Set(organizations.map((o) => o.id)));
  return htmlReply(
    200,
    operatorView(rt, user, csrfToken(context.sessionToken!), maintenance, rows, { others, reset }),
  );
}

/** `POST /operator/reset-link`: a one-time password reset link for the member with that email. */
async function resetLinkFor(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
): Promise<{ email: string; url: string }> {
  const email = (context.form.get('email') ?? '').trim();
  const target = email ? await rt.accounts.findUserByEmail(email) : null;
  if (!target) throw new ConsoleError(404, `There is no console user ${email || 'without an email'}.`);
  rt.logger?.info(
    { event: 'console.reset_link', userId: target.id, by: user.id },
    'console: reset link made',
  );
  await auditFrom(rt, context, {
    action: 'operator_action',
    target: target.email,
    detail: 'password reset link made',
  });
  return {
    email: target.email,
    url: absoluteLink(rt, context, await createResetLink(rt.accounts, target)),
  };
}

/** The operator's forms: maintenance, a grant (through the credits service, with its ledger entry), suspend. */
async function operatorAction(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
  path: string,
): Promise<void> {
  let match: RegExpExecArray | null;
  if (path === '/operator/maintenance') {
    const on = context.form.get('maintenance') === 'on';
    await rt.maintenance.set(on);
    rt.logger?.info({ event: 'console.maintenance', on, by: user.id }, 'console: maintenance switched');
    await auditFrom(rt, context, { action: 'operator_action', detail: `maintenance ${on ? 'on' : 'off'}` });
  } else if ((match = /^\/operator\/([^/]+)\/grant$/.exec(path))) {
    const amount = Number(context.form.get('credits'));
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_GRANT)
      throw new ConsoleError(400, 'Grant a whole number of credits from 1.');
    // An organization, or another credit account (the first start's, `keys create`'s).
    if (!(await rt.accounts.getOrganization(match[1]!)) && !(await rt.credits.hasAccount(match[1]!)))
      throw new ConsoleError(404, 'No such organization or credit account.');
    await rt.credits.grant(match[1]!, amount, `granted by ${user.email}`);
    await auditFrom(rt, context, {
      action: 'credits_granted',
      organizationId: match[1]!,
      target: match[1]!,
      detail: `${amount} credits`,
    });
  } else if ((match = /^\/operator\/([^/]+)\/(suspend|reactivate)$/.exec(path))) {
    if (!(await rt.accounts.setSuspended(match[1]!, match[2] === 'suspend')))
      throw new ConsoleError(404, 'No such organization.');
    await rt.keys.refreshSuspended();
    rt.logger?.info(
      { event: `console.${match[2]}`, organizationId: match[1], by: user.id },
      'console: organization status changed',
    );
    await auditFrom(rt, context, {
      action: 'operator_action',
      organizationId: match[1]!,
      target: match[1]!,
      detail: match[2] === 'suspend' ? 'organization suspended' : 'organization reactivated',
    });
  } else {
    throw new ConsoleError(404, 'This page does not exist.');
  }
}
