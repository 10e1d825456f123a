/**
 * The console's routes: which paths it owns, and which handler answers each (method and path). Pages
 * before sign-in first, then the user's own pages, then the organization's.
 */
import { auditPage } from './audit-page.ts';
import { readAsset } from './assets.ts';
import { acceptInvite, acceptSetup, invitePage, setupPage } from './invitations.ts';
import { operator } from './operator.ts';
import { acceptReset, resetPage } from './reset-pages.ts';
import {
  ask,
  createKey,
  setBudget,
  budgetPage,
  deleteInvitation,
  invite,
  keysPage,
  membersPage,
  playgroundPage,
  removeMember,
  revokeKey,
  usageCsv,
  usagePage,
} from './organization.ts';
import { ConsoleError, redirect, type ConsoleRequest, type ConsoleRuntime, type Reply } from './runtime.ts';
import { addDocument, deleteDocument, documentsPage } from './documents.ts';
import { cancelResearch, researchJobPage, researchPage, startResearch } from './research.ts';
import { ssoCallback, ssoStart } from './sso.ts';
import {
  accountPage,
  changePassword,
  contextOf,
  noOrganizationPage,
  organizationContext,
  signIn,
  signInPage,
  signOut,
  signUp,
  signUpPage,
  switchOrganization,
} from './session.ts';

const ROUTES = [
  '/',
  '/sign-up',
  '/sign-in',
  '/sign-out',
  '/keys',
  '/members',
  '/usage',
  '/usage.csv',
  '/audit',
  '/audit.csv',
  '/playground',
  '/playground/ask',
  '/research',
  '/documents',
  '/account',
  '/operator',
  '/organization',
  '/favicon.ico',
  '/sso/start',
  '/sso/callback',
];
const PREFIXES = [
  '/keys/',
  '/members/',
  '/invitations/',
  '/invite/',
  '/setup/',
  '/reset/',
  '/console-assets/',
  '/operator/',
  '/research/',
  '/documents/',
];

/** Whether `path` (relative to the mount point) is one of the console's. */
export function ownsPath(path: string): boolean {
  const clean = path.replace(/(.)\/+$/, '$1');
  return ROUTES.includes(clean) || PREFIXES.some((prefix) => clean.startsWith(prefix));
}

/** Answers one request; throws {@link ConsoleError} for the error page. */
export async function route(rt: ConsoleRuntime, request: ConsoleRequest): Promise<Reply> {
  const path = request.path.replace(/(.)\/+$/, '$1');
  const method = request.method.toUpperCase();
  if (path.startsWith('/console-assets/')) return asset(path.slice('/console-assets/'.length));
  // Browsers ask for /favicon.ico on their own (e.g. on a JSON page of the API): the console's icon.
  if (path === '/favicon.ico') return asset('favicon.svg');
  const context = await contextOf(rt, request, method);
  const get = method === 'GET' || method === 'HEAD';
  if (!get && method !== 'POST') throw new ConsoleError(405, 'Method not allowed.');

  if (path === '/') return redirect(rt, context.user ? '/keys' : '/sign-in');
  if (path === '/sign-up') return get ? signUpPage(rt, context) : signUp(rt, context);
  if (path === '/sign-in') return get ? signInPage(rt, context) : signIn(rt, context);
  if (path === '/sign-out' && !get) return signOut(rt, context);
  if (path === '/sso/start' && get) return ssoStart(rt, context);
  if (path === '/sso/callback' && get) return ssoCallback(rt, context);
  let match: RegExpExecArray | null;
  if ((match = /^\/invite\/([^/]+)$/.exec(path)))
    return get ? invitePage(rt, context, match[1]!) : acceptInvite(rt, context, match[1]!);
  if ((match = /^\/setup\/([^/]+)$/.exec(path)))
    return get ? setupPage(rt, context, match[1]!) : acceptSetup(rt, context, match[1]!);
  if ((match = /^\/reset\/([^/]+)$/.exec(path)))
    return get ? resetPage(rt, context, match[1]!) : acceptReset(rt, context, match[1]!);

  if (!context.user || !context.sessionToken) {
    if (path === '/playground/ask') throw new ConsoleError(401, 'Sign in first.');
    return redirect(rt, '/sign-in');
  }
  const user = context.user;
  if (path === '/account') return get ? accountPage(rt, context, user) : changePassword(rt, context, user);
  if (path === '/organization' && !get) return switchOrganization(rt, context, user);
  if (path === '/operator' || path.startsWith('/operator/')) return operator(rt, context, user, path, get);
  if ((path === '/audit' || path === '/audit.csv') && get)
    return auditPage(rt, context, user, path === '/audit.csv');

  const org = await organizationContext(rt, context, user);
  if (!org) return noOrganizationPage(rt, context, user);
  if (path === '/keys') return get ? keysPage(rt, org) : createKey(rt, org);
  if ((match = /^\/keys\/([^/]+)\/revoke$/.exec(path)) && !get) return revokeKey(rt, org, match[1]!);
  if ((match = /^\/keys\/([^/]+)\/budget$/.exec(path)))
    return get ? budgetPage(rt, org, match[1]!) : setBudget(rt, org, match[1]!);
  if (path === '/members') return get ? membersPage(rt, org) : invite(rt, org);
  if ((match = /^\/members\/([^/]+)\/remove$/.exec(path)) && !get) return removeMember(rt, org, match[1]!);
  if ((match = /^\/invitations\/([^/]+)\/delete$/.exec(path)) && !get)
    return deleteInvitation(rt, org, match[1]!);
  if (path === '/usage' && get) return usagePage(rt, org);
  if (path === '/usage.csv' && get) return usageCsv(rt, org);
  if (path === '/playground' && get) return playgroundPage(rt, org);
  if (path === '/playground/ask' && !get) return ask(rt, org);
  if (path === '/research') return get ? researchPage(rt, org) : startResearch(rt, org);
  if ((match = /^\/research\/([^/]+)$/.exec(path)) && get) return researchJobPage(rt, org, match[1]!);
  if ((match = /^\/research\/([^/]+)\/cancel$/.exec(path)) && !get) return cancelResearch(rt, org, match[1]!);
  if (path === '/documents') return get ? documentsPage(rt, org) : addDocument(rt, org);
  if ((match = /^\/documents\/([^/]+)\/delete$/.exec(path)) && !get)
    return deleteDocument(rt, org, match[1]!);
  throw new ConsoleError(404, 'This page does not exist.');
}

/** The console's stylesheet, script and the libraries the playground loads, cached for an hour. */
async function asset(name: string): Promise<Reply> {
  const found = await readAsset(name);
  if (!found) throw new ConsoleError(404, 'No such file.');
  return {
    status: 200,
    headers: { 'content-type': found.type, 'cache-control': 'public, max-age=3600' },
    body: found.body,
  };
}
