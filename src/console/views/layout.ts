/**
 * The frame of every console page (head, navigation, the organization bar) and the small pieces pages
 * share: the CSRF field, an error note, the balance, the email-and-password form, a time.
 */
import { html, type Html } from '../html.ts';
import type { ConsolePaths, OrgContext } from '../runtime.ts';
import { csrfToken } from '../security.ts';
import type { UserRecord } from '../../stores/account-types.ts';

/** What {@link page} lays out. */
export interface PageInput {
  readonly title: string;
  readonly user: UserRecord | null;
  readonly org?: OrgContext;
  /** The session's CSRF token (signed-in pages). */
  readonly csrf?: string;
  readonly body: Html;
  /** Load the playground's Markdown renderer and sanitizer. */
  readonly scripts?: boolean;
}

/** A whole page: head, header with navigation (signed in), the organization bar, then `body`. */
export function page(paths: ConsolePaths, input: PageInput): Html {
  const { link, basePath } = paths;
  const { org, user } = input;
  const nav = user
    ? html`<nav aria-label="Main">
        <ul>
          <li><a href="${link('/keys')}">API keys</a></li>
          <li><a href="${link('/usage')}">Usage</a></li>
          <li><a href="${link('/members')}">Members</a></li>
          <li><a href="${link('/playground')}">Playground</a></li>
          <li><a href="${link('/research')}">Research</a></li>
          <li><a href="${link('/documents')}">Documents</a></li>
          ${
            user.operator || (org && org.membership.role !== 'member')
              ? html`<li><a href="${link('/audit')}">Audit</a></li>`
              : ''
          }
          ${user.operator ? html`<li><a href="${link('/operator')}">Operator</a></li>` : ''}
          <li><a href="${link('/account')}">Account</a></li>
        </ul>
        <form method="post" action="${link('/sign-out')}" class="inline">
          <input type="hidden" name="_csrf" value="${input.csrf ?? ''}" />
          <button type="submit" class="secondary">Sign out</button>
        </form>
      </nav>`
    : '';
  const orgBar = org
    ? html`<div class="org-bar">
        <p>
          <span class="muted">Organization</span> <strong>${org.organization.name}</strong>
          <span class="muted">· your role: ${org.membership.role}</span>
        </p>
        ${
          org.organizations.length > 1
            ? html`<form method="post" action="${link('/organization')}" class="inline">
                <input type="hidden" name="_csrf" value="${input.csrf ?? ''}" />
                <label for="org-switch">Switch organization</label>
                <select id="org-switch" name="organization">
                  ${org.organizations.map(
                    (o) =>
                      html`<option value="${o.id}" ${o.id === org.organization.id ? html`selected` : ''}>
                        ${o.name}
                      </option>`,
                  )}
                </select>
                <button type="submit" class="secondary">Switch</button>
              </form>`
            : ''
        }
      </div>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${input.csrf ? html`<meta name="csrf-token" content="${input.csrf}" />` : ''}
        <meta name="base-path" content="${basePath}" />
        <title>${input.title} · citewise console</title>
        <link rel="icon" href="${link('/console-assets/favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${link('/console-assets/console.css')}" />
        ${
          input.scripts
            ? html`<script src="${link('/console-assets/marked.umd.js')}" defer></script>
                <script src="${link('/console-assets/purify.min.js')}" defer></script>`
            : ''
        }
        <script src="${link('/console-assets/console.js')}" defer></script>
      </head>
      <body>
        <header>
          <a class="brand" href="${link('/')}">citewise <span>console</span></a>
          ${nav}
        </header>
        <main id="main">${orgBar}${input.body}</main>
      </body>
    </html>`;
}

/** A page of the organization in `org`, signed in. */
export function orgPage(
  paths: ConsolePaths,
  org: OrgContext,
  title: string,
  body: Html,
  scripts = false,
): Html {
  return page(paths, { title, user: org.user, org, csrf: csrfToken(org.sessionToken), body, scripts });
}

/** The hidden CSRF field of a signed-in form (nothing when signed out). */
export function csrfField(context: { sessionToken: string | null }): Html {
  return context.sessionToken
    ? html`<input type="hidden" name="_csrf" value="${csrfToken(context.sessionToken)}" />`
    : html``;
}

/** An error message above a form. */
export function errorNote(message: string | undefined): Html {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}

/** A value shown once with a Copy button (a new key, an invitation link); `id` is also its test id. */
export function copyOnce(id: string, intro: Html, value: string): Html {
  return html`<div class="new-key" role="status">
    <p>${intro}</p>
    <p class="copy-row">
      <output data-testid="${id}" id="${id}">${value}</output>
      <button type="button" class="secondary" data-copy="${id}">Copy</button>
    </p>
  </div>`;
}

/** The organization's available credits. */
export function balanceNote(available: number): Html {
  return html`<p class="balance">
    Available credits: <strong data-testid="available-credits">${available.toLocaleString('en-US')}</strong>
  </p>`;
}

/** The email-and-password form of sign-up or sign-in. */
export function credentialsForm(
  paths: ConsolePaths,
  action: string,
  button: 'Sign up' | 'Sign in',
  idPrefix: string,
  extra?: Html,
): Html {
  const autocomplete = button === 'Sign up' ? 'new-password' : 'current-password';
  return html`<form method="post" action="${paths.link(action)}" class="stack">
    ${extra ?? ''}
    <label for="${idPrefix}-email">Email</label>
    <input id="${idPrefix}-email" name="email" type="email" autocomplete="email" required maxlength="320" />
    <label for="${idPrefix}-password">Password</label>
    <input
      id="${idPrefix}-password"
      name="password"
      type="password"
      autocomplete="${autocomplete}"
      required
      minlength="${button === 'Sign up' ? 10 : 1}"
      maxlength="200"
    />
    ${button === 'Sign up' ? html`<p class="hint">At least 10 characters.</p>` : ''}
    <button type="submit">${button}</button>
  </form>`;
}

/** A sign-up and a sign-in form side by side (invitation and setup links), each sending `intent`. */
export function signUpOrSignIn(
  paths: ConsolePaths,
  action: string,
  idPrefix: string,
  headings: readonly [string, string],
): Html {
  return html`<div class="columns">
    <section aria-labelledby="${idPrefix}-new">
      <h2 id="${idPrefix}-new">${headings[0]}</h2>
      ${credentialsForm(paths, action, 'Sign up', `${idPrefix}-signup`, html`<input type="hidden" name="intent" value="sign-up" />`)}
    </section>
    <section aria-labelledby="${idPrefix}-existing">
      <h2 id="${idPrefix}-existing">${headings[1]}</h2>
      ${credentialsForm(paths, action, 'Sign in', `${idPrefix}-signin`, html`<input type="hidden" name="intent" value="sign-in" />`)}
    </section>
  </div>`;
}

/** A time as `YYYY-MM-DD HH:MM UTC`. */
export function formatTime(time: number): string {
  return new Date(time).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}
