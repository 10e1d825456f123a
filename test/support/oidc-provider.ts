/**
 * A real OpenID Connect provider (`oidc-provider`) on 127.0.0.1 for the SSO suites: discovery, the
 * authorization endpoint with its (development) login and consent pages, token, userinfo and JWKS. Its
 * people are a table the test may change between sign-ins (to move someone in or out of a group).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';
import { listenOnLoopback } from './loopback-server.ts';

/** A person at the provider: the claims it vouches for. */
export interface ProviderAccount {
  email: string;
  email_verified: boolean;
  name?: string;
  groups?: string[];
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`: the issuer. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** People by login name (what one types on the provider's login page); change freely. */
  readonly accounts: Map<string, ProviderAccount>;
  /** Requests the provider received, as `METHOD path` (e.g. to count discovery fetches). */
  readonly requests: string[];
  /** While `true`, every request answers 503 (a provider that is down). */
  down: boolean;
  close(): Promise<void>;
}

/** Starts the provider with one confidential client whose callback is `redirectUri`. */
export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const accounts = new Map<string, ProviderAccount>();
  const state = { down: false };
  const requests: string[] = [];
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    if (handle && !state.down) handle(req, res);
    else res.writeHead(503).end();
  });
  const listening = await listenOnLoopback(server);
  const issuer = listening.baseUrl;
  const clientId = 'citewise-console';
  const clientSecret = 'a-client-secret-for-tests-only-0123456789';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    pkce: { required: () => true },
    cookies: { keys: ['cookie-key-for-tests-only'] },
    findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, ...account }),
      };
    },
  });
  // The provider's warnings about its development-only login pages and keys are expected here.
  provider.on('server_error', (_ctx, error) => console.error('oidc-provider:', error));
  const callback = provider.callback();
  handle = (req, res) => void callback(req, res);
  return {
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    issuer,
    clientId,
    clientSecret,
    accounts,
    requests,
    close: () => listening.close(),
  };
}
