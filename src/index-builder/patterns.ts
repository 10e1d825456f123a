/**
 * `--include` / `--exclude` patterns: a prefix, or a glob when the pattern contains `*`.
 *
 * A pattern that starts with `http://` or `https://` is matched against the whole URL; any other pattern
 * against the URL's path and query (for files: the path relative to the indexed folder, with `/`
 * separators and a leading `/`). In globs, `*` matches within one path segment and `**` across segments.
 */

/** A compiled pattern. */
export type PathPattern = (url: URL | string) => boolean;

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Glob to an anchored regular expression (`**` → anything, `*` → anything but `/`). */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '*') {
      if (glob[i + 1] === '*') {
        source += '.*';
        i++;
      } else source += '[^/]*';
    } else source += escapeRegExp(glob[i]!);
  }
  return new RegExp(`^${source}$`);
}

/**
 * Compiles a pattern.
 * @throws TypeError when the pattern is empty.
 */
export function compilePattern(pattern: string): PathPattern {
  if (typeof pattern !== 'string' || pattern.trim() === '') throw new TypeError('pattern must be non-empty');
  const trimmed = pattern.trim();
  const absolute = /^https?:\/\//i.test(trimmed);
  const expected = absolute ? trimmed : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  const glob = expected.includes('*') ? globToRegExp(expected) : undefined;
  return (input) => {
    let target: string;
    if (typeof input === 'string') target = input.startsWith('/') ? input : `/${input}`;
    else target = absolute ? input.href : `${input.pathname}${input.search}`;
    return glob ? glob.test(target) : target.startsWith(expected);
  };
}

/** Include/exclude filter: with includes, a target must match one; it must match no exclude. */
export function compileFilter(
  include: readonly string[] = [],
  exclude: readonly string[] = [],
): (target: URL | string) => boolean {
  const includes = include.map(compilePattern);
  const excludes = exclude.map(compilePattern);
  return (target) =>
    (includes.length === 0 || includes.some((matches) => matches(target))) &&
    !excludes.some((matches) => matches(target));
}
