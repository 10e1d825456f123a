/**
 * `GET /audit` and `GET /audit.csv`: the audit log of the organization, for its owners and admins; the
 * operator sees every organization's (and the instance's own entries), with an organization filter.
 */
import type { AuditQuery } from '../stores/audit.ts';
import type { UserRecord } from '../stores/account-types.ts';
import {
  ConsoleError,
  htmlReply,
  type Context,
  type ConsoleRuntime,
  type OrgContext,
  type Reply,
} from './runtime.ts';
import { csrfToken } from './security.ts';
import { organizationContext } from './session.ts';
import { auditCsv, auditView, type AuditFilters } from './views/audit.ts';

/** Entries the page shows (the CSV has up to {@link CSV_ENTRIES}). */
const PAGE_ENTRIES = 200;
/** Entries one CSV holds. */
const CSV_ENTRIES = 10_000;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The audit page or its CSV. */
export async function auditPage(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
  csv: boolean,
): Promise<Reply> {
  const org = await organizationContext(rt, context, user);
  const manages = org !== null && ['owner', 'admin'].includes(org.membership.role);
  if (!user.operator && !manages) {
    throw new ConsoleError(403, "Only the organization's owners and admins can read its audit log.");
  }
  const params = new URLSearchParams(context.request.query ?? '');
  const filters = filtersOf(params, user.operator);
  const { query, error } = auditQuery(filters, user.operator ? undefined : org!);
  const limit = csv ? CSV_ENTRIES : PAGE_ENTRIES;
  const entries = error ? [] : await rt.audit.list({ ...query, limit: limit + 1 });
  const shown = entries.slice(0, limit);
  if (csv) {
    return {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="citewise-audit-${filters.organization ?? (user.operator ? 'all' : org!.organization.id)}.csv"`,
        'cache-control': 'no-store',
      },
      body: auditCsv(shown),
    };
  }
  const organizations = user.operator
    ? new Map((await rt.accounts.listOrganizations()).map((o) => [o.id, o.name]))
    : new Map<string, string>();
  return htmlReply(
    error ? 400 : 200,
    auditView(
      rt,
      { org: user.operator ? null : org, user, csrf: csrfToken(context.sessionToken!) },
      {
        filters,
        entries: shown,
        more: entries.length > limit,
        query: queryString(filters),
        operator: user.operator,
        organizations,
        error,
      },
    ),
  );
}

/** The filters given in the query string (the organization only for the operator). */
function filtersOf(params: URLSearchParams, operator: boolean): AuditFilters {
  const value = (name: string) => {
    const text = (params.get(name) ?? '').trim();
    return text === '' ? undefined : text.slice(0, 320);
  };
  const filters: Record<string, string | undefined> = {
    action: value('action'),
    actor: value('actor'),
    since: value('since'),
    until: value('until'),
    organization: operator ? value('organization') : undefined,
  };
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
}

/** The store query of the filters: dates as UTC days (`until` included), an admin's own organization. */
function auditQuery(
  filters: AuditFilters,
  org: OrgContext | undefined,
): { query: AuditQuery; error?: string } {
  for (const name of ['since', 'until'] as const) {
    const date = filters[name];
    if (date !== undefined && (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))) {
      return { query: {}, error: 'Give dates as YYYY-MM-DD.' };
    }
  }
  const organizationId = org ? org.organization.id : filters.organization;
  return {
    query: {
      ...(organizationId ? { organizationId } : {}),
      ...(filters.action ? { action: filters.action } : {}),
      ...(filters.actor ? { actor: filters.actor.toLowerCase() } : {}),
      ...(filters.since ? { since: Date.parse(`${filters.since}T00:00:00Z`) } : {}),
      ...(filters.until ? { until: Date.parse(`${filters.until}T00:00:00Z`) + DAY_MS } : {}),
    },
  };
}

function queryString(filters: AuditFilters): string {
  return new URLSearchParams(Object.entries(filters) as [string, string][]).toString();
}
