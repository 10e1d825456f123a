/**
 * Domain filters of a search (`include_domains` / `exclude_domains`): a domain matches itself and its
 * subdomains. The pipeline applies them to every provider's hits, so the filter holds whatever the
 * upstream did; engines that understand `site:` operators also get them in the query.
 */
import type { SearchFilters, SearchHit } from '../types.ts';

/** Whether `host` (lower case) is `domain` or one of its subdomains; `*.x.org`, `.x.org` and `x.org.` mean `x.org`. */
export function hostMatches(host: string, domain: string): boolean {
  const bare = domain
    .toLowerCase()
    .replace(/^\*?\./, '')
    .replace(/\.$/, '');
  return host === bare || host.endsWith(`.${bare}`);
}

/**
 * Applies include/exclude domain filters to hits (a domain matches itself and its subdomains). Providers
 * that filter natively still pass through here, so the filter holds whatever the upstream did.
 */
export function applyDomainFilters(
  hits: readonly SearchHit[],
  filters: SearchFilters | undefined,
): SearchHit[] {
  const include = filters?.includeDomains?.filter((d) => d.trim() !== '') ?? [];
  const exclude = filters?.excludeDomains?.filter((d) => d.trim() !== '') ?? [];
  if (include.length === 0 && exclude.length === 0) return [...hits];
  return hits.filter((hit) => {
    let host: string;
    try {
      host = new URL(hit.url).hostname.toLowerCase();
    } catch {
      return false;
    }
    if (include.length > 0 && !include.some((d) => hostMatches(host, d))) return false;
    return !exclude.some((d) => hostMatches(host, d));
  });
}

/** Appends `site:` / `-site:` operators for engines that understand them (Google, Brave, DuckDuckGo). */
export function withSiteOperators(query: string, filters: SearchFilters | undefined): string {
  const include = filters?.includeDomains?.filter((d) => d.trim() !== '') ?? [];
  const exclude = filters?.excludeDomains?.filter((d) => d.trim() !== '') ?? [];
  const parts = [query];
  if (include.length === 1) parts.push(`site:${include[0]}`);
  else if (include.length > 1) parts.push(`(${include.map((d) => `site:${d}`).join(' OR ')})`);
  for (const domain of exclude) parts.push(`-site:${domain}`);
  return parts.join(' ');
}
