/**
 * The console's OpenID Connect relying party, on `openid-client`: the authorization code flow with PKCE
 * (S256), `state` and `nonce`. {@link createOidcRelyingParty} discovers the provider once (the discovery
 * document and its keys are kept for the life of the process; a failed discovery is tried again on the
 * next sign-in), builds the authorization URL with fresh checks, and at the callback verifies the response
 * against them and returns who signed in: subject, email, whether the provider verified it, and groups.
 *
 * The issuer is the operator's configuration, never a URL from a request. A plain `http://` issuer is
 * accepted on loopback only (tests, development): anywhere else the tokens would cross the network in
 * the clear.
 */
import * as oidc from 'openid-client';

/** Defaults of {@link SsoOptions}. */
export const SSO_DEFAULTS = {
  /** Scopes asked for; `groups` is added when an admin group is set. */
  scopes: ['openid', 'email', 'profile'],
  /** How long a started sign-in may take at the provider (the life of its state cookie): 10 minutes. */
  flowTtlMs: 600_000,
  /** Timeout of each request to the provider (discovery, token, userinfo), in seconds. */
  timeoutSeconds: 10,
  passwordSignIn: true,
} as const;

/** Single sign-on with an OpenID Connect provider (Keycloak, Entra ID, Okta, Google, Authentik, Zitadel, …). */
export interface SsoOptions {
  /** The provider's issuer URL, e.g. `https://sso.example.com/realms/acme`; `http://` only on loopback. */
  readonly issuer: string;
  /** The client id registered at the provider for this console. */
  readonly clientId: string;
  /** The client secret (a confidential client); without it the console is a public client (PKCE only). @default none */
  readonly clientSecret?: string;
  /**
   * Where browsers reach the service (`--public-url`): the callback registered at the provider is
   * `<publicUrl><basePath>/sso/callback`.
   */
  readonly publicUrl: string;
  /** The organization SSO users join, by name; created (with the free credits) if missing. */
  readonly organization: string;
  /** Members of this value of the `groups` claim join as admins, others as members. @default none (roles are left to the console) */
  readonly adminGroup?: string;
  /** Scopes to ask for. @default ['openid', 'email', 'profile'] (plus 'groups' with an adminGroup) */
  readonly scopes?: readonly string[];
  /**
   * Whether members of the SSO organization may still sign in with a password (instance operators always
   * may: the way in when the provider is down). @default true
   */
  readonly passwordSignIn?: boolean;
}

/** Why an issuer URL is refused, or `null` when it is acceptable. */
export function issuerProblem(issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be an https:// URL, e.g. https://sso.example.com/realms/acme';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return null;
  if (url.protocol === 'http:') return 'must be an https:// URL (plain http:// is accepted on loopback only)';
  return 'must be an https:// URL, e.g. https://sso.example.com/realms/acme';
}

/** `localhost`, 127.0.0.0/8 or ::1. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The scopes a sign-in asks for: the given ones, else the defaults plus `groups` with an admin group. */
export function resolveScopes(options: Pick<SsoOptions, 'scopes' | 'adminGroup'>): string[] {
  if (options.scopes) return [...options.scopes];
  return [...SSO_DEFAULTS.scopes, ...(options.adminGroup ? ['groups'] : [])];
}

/** Checks {@link SsoOptions}; throws `TypeError` naming the bad one. */
export function assertSsoOptions(options: SsoOptions): void {
  const text = (value: unknown) => typeof value === 'string' && value.trim() !== '';
  if (!text(options.issuer)) throw new TypeError('sso.issuer must be a URL');
  const problem = issuerProblem(options.issuer);
  if (problem) throw new TypeError(`sso.issuer ${problem}`);
  if (!text(options.clientId)) throw new TypeError('sso.clientId must be a non-empty string');
  if (options.clientSecret !== undefined && !text(options.clientSecret))
    throw new TypeError('sso.clientSecret must be a non-empty string when given');
  if (!text(options.organization)) throw new TypeError('sso.organization must be a non-empty string');
  if (options.adminGroup !== undefined && !text(options.adminGroup))
    throw new TypeError('sso.adminGroup must be a non-empty string when given');
  if (!/^https?:\/\/[^/]/.test(options.publicUrl ?? ''))
    throw new TypeError('sso.publicUrl must be an http(s) URL');
  const scopes = resolveScopes(options);
  if (!scopes.includes('openid')) throw new TypeError('sso.scopes must include "openid"');
  if (scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)))
    throw new TypeError('sso.scopes must be scope tokens (no spaces or quotes)');
}

/** The checks of one started sign-in, kept in the browser's SSO cookie until the callback. */
export interface FlowChecks {
  readonly state: string;
  readonly nonce: string;
  /** The PKCE code verifier. */
  readonly verifier: string;
}

/** Who signed in, as the provider vouched for it. */
export interface SsoIdentity {
  readonly subject: string;
  /** Lower-cased; `null` when the provider sent none. */
  readonly email: string | null;
  /**
   * Whether the provider says it verified the email: `email_verified: true`, or Entra ID's
   * `xms_edov: true` (its email domain owner verified claim, as Entra ID sends no `email_verified`).
   */
  readonly emailVerified: boolean;
  /** Values of the `groups` claim (empty when absent). */
  readonly groups: readonly string[];
}

/** The relying party of one console. */
export interface OidcRelyingParty {
  /** The callback URL registered at the provider. */
  readonly redirectUri: string;
  /** Fresh checks and the provider's authorization URL that carries them. */
  start(): Promise<{ url: URL; checks: FlowChecks }>;
  /**
   * Completes a sign-in from the callback's query string: verifies state, exchanges the code with the PKCE
   * verifier, verifies the ID token (signature, issuer, audience, expiry, nonce) and reads the claims,
   * asking the userinfo endpoint for those the ID token lacks. Throws when anything does not match.
   */
  finish(query: string, checks: FlowChecks): Promise<SsoIdentity>;
}

/** The provider could not be reached or answered badly (discovery): the page says to try again later. */
export class SsoProviderUnavailableError extends Error {
  override readonly name = 'SsoProviderUnavailableError';
}

/** Creates the relying party; discovery happens at the first sign-in and is kept. */
export function createOidcRelyingParty(options: SsoOptions, basePath: string): OidcRelyingParty {
  assertSsoOptions(options);
  const redirectUri = `${options.publicUrl.replace(/\/+$/, '')}${basePath}/sso/callback`;
  const scope = resolveScopes(options).join(' ');
  const issuer = new URL(options.issuer);
  let discovered: Promise<oidc.Configuration> | undefined;

  function configuration(): Promise<oidc.Configuration> {
    discovered ??= oidc
      .discovery(
        issuer,
        options.clientId,
        options.clientSecret,
        // The OpenID Connect default method; a secret-less client is public and relies on PKCE.
        options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None(),
        {
          timeout: SSO_DEFAULTS.timeoutSeconds,
          // issuerProblem() let http:// through for loopback only.
          ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
        },
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw new SsoProviderUnavailableError(`OpenID discovery of ${issuer.href} failed`, { cause: error });
      });
    return discovered;
  }

  return {
    redirectUri,
    async start() {
      const config = await configuration();
      const checks: FlowChecks = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
      };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope,
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: 'S256',
      });
      return { url, checks };
    },
    async finish(query, checks) {
      const config = await configuration();
      const tokens = await oidc.authorizationCodeGrant(
        config,
        new URL(`${redirectUri}${query}`),
        { pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce },
        { redirect_uri: redirectUri },
      );
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the provider returned no ID token');
      let claims: Readonly<Record<string, unknown>> = idClaims;
      const missing =
        claims['email'] === undefined ||
        (claims['email_verified'] === undefined && claims['xms_edov'] === undefined) ||
        (options.adminGroup !== undefined && claims['groups'] === undefined);
      if (missing && config.serverMetadata().userinfo_endpoint) {
        // Providers that keep profile claims out of the ID token (oidc-provider, Okta) give them here.
        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...userinfo, ...idClaims };
      }
      return identityOf(idClaims.sub, claims);
    },
  };
}

function identityOf(subject: string, claims: Readonly<Record<string, unknown>>): SsoIdentity {
  const email = typeof claims['email'] === 'string' ? claims['email'].trim().toLowerCase() : '';
  const verified = (value: unknown) => value === true || value === 'true';
  const groups = claims['groups'];
  return {
    subject,
    email: email || null,
    emailVerified: verified(claims['email_verified']) || verified(claims['xms_edov']),
    groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
  };
}
