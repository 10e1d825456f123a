/**
 * The package's name and version, read from package.json (the one place they are written) for every place
 * that shows them: the User-Agent, `citewise --version`, the OpenAPI document and the MCP server info.
 * Read at run time through the package's own name (not a JSON import, which tsc would copy into dist/).
 */
import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('citewise/package.json') as { name: string; version: string };

/** The npm package name, `citewise`. */
export const PACKAGE_NAME: string = pkg.name;

/** The package version, e.g. `0.1.0`. */
export const PACKAGE_VERSION: string = pkg.version;

/**
 * The User-Agent of every request citewise makes (pages, robots.txt, search providers): honest, it names the
 * software and its version. Its product token (`citewise`) is what robots.txt rules match. Operators of the
 * Wikipedia provider should add contact details (Wikimedia's User-Agent policy), via the `userAgent` option.
 */
export const USER_AGENT = `${PACKAGE_NAME}/${PACKAGE_VERSION} (+https://github.com/citewise)`;
