/**
 * The warning `serve` logs at start when anyone who reaches it can sign up: it listens on a non-loopback
 * address, the console is on, and sign-up is open to every email domain. Each new account gets free credits.
 */
import { isLoopbackHost } from '../mcp/hosts.ts';
import type { ConsoleSettings } from './console-command.ts';

/** The log line of an exposed open sign-up: its fields and message. */
export interface ExposureWarning {
  readonly fields: { readonly host: string; readonly signup: 'open'; readonly freeCredits: number };
  readonly message: string;
}

/** The warning when `serve` on `host` with these console settings lets anyone sign up; else `null`. */
export function openSignupExposure(
  host: string,
  console: Pick<ConsoleSettings, 'enabled' | 'signup' | 'signupDomains'> | undefined,
  freeCredits: number,
): ExposureWarning | null {
  if (!console?.enabled || console.signup !== 'open' || console.signupDomains.length > 0) return null;
  if (isLoopbackHost(host)) return null;
  return {
    fields: { host, signup: 'open', freeCredits },
    message:
      `console sign-up is open to anyone who can reach ${host}, and every new account gets ${freeCredits} ` +
      'free credits: start with --signup invite-only or --signup-domains example.com unless that is meant',
  };
}
