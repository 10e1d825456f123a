#!/usr/bin/env node
// The `citewise` command. The guard comes first: on a Node.js older than package.json "engines" it stops with
// one sentence.
import './node-version-guard.js';
import { existsSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';

// Which code to run. Node refuses to strip types from files under node_modules
// (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), so an installed package always runs its build (dist/). A
// checkout (including one linked with `npm link`: Node resolves the bin's symlink to its real path) runs the
// TypeScript sources when this Node strips types, so no build is needed while developing; otherwise the build.
const here = fileURLToPath(import.meta.url);
const installed = here.split(/[\\/]/).includes('node_modules');
const sources = new URL('../src/cli/main.ts', import.meta.url);
const build = new URL('../dist/src/cli/main.js', import.meta.url);
const entry = !installed && process.features.typescript && existsSync(sources) ? sources : build;
if (!existsSync(entry)) {
  process.stderr.write(`citewise: ${fileURLToPath(entry)} is missing; run \`npm run build\` first.\n`);
  process.exit(1);
}
const { main } = await import(entry.href);
await main();
