/**
 * What the console's pages that call the API as the organization share (Documents, Research): a
 * short-lived key of the organization, so that the console sees, and is refused, exactly what the API
 * would; and the reply of a page of the organization's section.
 */
import type { Html } from './html.ts';
import { activeKeys } from './organization.ts';
import { htmlReply, type ConsoleRuntime, type OrgContext, type Reply } from './runtime.ts';
import { orgPage } from './views/layout.ts';

/**
 * A short-lived key of the organization: its active key `keyId`, else (no `keyId`) its first active key;
 * null when there is none. What the key reads is the account's, whichever of its keys reads it.
 */
export async function organizationApiKey(
  rt: ConsoleRuntime,
  org: OrgContext,
  keyId?: string,
): Promise<string | null> {
  const active = activeKeys(await rt.keys.list(org.organization.id));
  const record = keyId === undefined ? active[0] : active.find((k) => k.id === keyId);
  return record ? rt.keys.mintPlaygroundKey(record) : null;
}

/** A page of the organization's section (`scripts`: with the Markdown renderer), answered 200. */
export function orgPageReply(
  rt: ConsoleRuntime,
  org: OrgContext,
  title: string,
  body: Html,
  scripts = false,
): Reply {
  return htmlReply(200, orgPage(rt, org, title, body, scripts));
}
