/**
 * `GET /reset/<token>` and `POST /reset/<token>`: the page a one-time password reset link opens (made by the
 * operator, see password-reset.ts), and the new password it sets.
 */
import { auditUserEvent } from './audit.ts';
import { newPasswordField, resetPassword, resetUser } from './password-reset.ts';
import { ConsoleError, htmlReply, type ConsoleRuntime, type Context, type Reply } from './runtime.ts';
import { startSession, throttle } from './session.ts';
import { html } from './html.ts';
import { errorNote, page } from './views/layout.ts';

/** The form for a new password; 404 when the link is not valid any more. */
export async function resetPage(
  rt: ConsoleRuntime,
  context: Context,
  token: string,
  refused?: { readonly error: string; readonly status: number },
): Promise<Reply> {
  const user = await resetUser(rt.accounts, token);
  if (!user) throw new ConsoleError(404, 'This reset link is not valid any more.');
  const error = refused?.error;
  return htmlReply(
    refused ? refused.status : 200,
    page(rt, {
      title: 'Choose a new password',
      user: null,
      body: html`<section class="card narrow">
        <h1>Choose a new password</h1>
        <p>For <strong>${user.email}</strong>. The link works once; every signed-in browser is signed out.</p>
        ${errorNote(error)}
        <form method="post" action="${rt.link(`/reset/${token}`)}" class="stack">
          ${newPasswordField('reset-password', 'New password')}
          <button type="submit">Set password</button>
        </form>
      </section>`,
    }),
  );
}

/** Sets the password, uses the link up, ends every session and signs this browser in. */
export async function acceptReset(rt: ConsoleRuntime, context: Context, token: string): Promise<Reply> {
  await throttle(rt, context, null);
  const done = await resetPassword(rt.accounts, token, context.form.get('password') ?? '');
  if (done === null) throw new ConsoleError(404, 'This reset link is not valid any more.');
  if ('problem' in done) return resetPage(rt, context, token, { error: done.problem, status: 400 });
  rt.logger?.info({ event: 'console.password_reset', userId: done.id }, 'console: password reset by link');
  await auditUserEvent(rt, { user: done, clientAddress: context.clientAddress }, done.id, {
    action: 'password_reset',
    target: done.email,
    detail: 'by reset link',
  });
  return startSession(rt, context, done, '/keys');
}
