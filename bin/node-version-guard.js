// Stops citewise on a Node.js older than package.json "engines" (the one source of the requirement) with one
// sentence, instead of a stack trace from deep inside a dependency. Every entry point (the bin and each
// export, through the package-private import "#node-version-guard") imports this module first.
// Plain JavaScript with nothing newer than ES2017 and no static import of a built-in, so that any Node parses it,
// and it does nothing outside Node (the client and the fetch adapter also run in browsers and workers).
const runtime = globalThis.process;
const isNode =
  typeof runtime === 'object' &&
  runtime !== null &&
  runtime.release !== undefined &&
  runtime.release.name === 'node' &&
  globalThis.Bun === undefined &&
  globalThis.Deno === undefined;

if (isNode) {
  // getBuiltinModule exists from Node 20.16 / 22.3; older versions are below any range we require.
  const nodeModule =
    typeof runtime.getBuiltinModule === 'function' ? runtime.getBuiltinModule('node:module') : undefined;
  let required;
  let supported = false;
  if (nodeModule !== undefined) {
    const require = nodeModule.createRequire(import.meta.url);
    // The package resolves itself by name, in a checkout and when installed alike.
    required = require('citewise/package.json').engines.node;
    supported = require('semver/functions/satisfies').call(undefined, runtime.versions.node, required, {
      includePrerelease: true,
    });
  }
  if (!supported) {
    const need =
      required === undefined ? 'a newer Node.js (see "engines" in its package.json)' : `Node.js ${required}`;
    runtime.stderr.write(
      `citewise needs ${need}, but this is Node.js ${runtime.versions.node}. ${howToRun(runtime.argv)}\n`,
    );
    runtime.exit(1);
  }
}

/**
 * The one command that runs the same thing on Node.js 24 without installing it (npx fetches the `node`
 * package), or, without a script to name (`node -e`, a REPL), what to install.
 */
function howToRun(argv) {
  const script = argv[1];
  if (typeof script !== 'string' || script.length === 0 || script === '-')
    return 'Install Node.js 24 (https://nodejs.org/) and run it again.';
  const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);
  return `Run it on Node.js 24 with: npx -y node@24 ${[script, ...argv.slice(2)].map(quote).join(' ')}`;
}
