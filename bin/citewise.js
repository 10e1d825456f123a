#!/usr/bin/env node
// Runs the CLI from the TypeScript sources where Node strips types (>= 22.18), else from the build.
const entry = process.features.typescript ? '../src/cli/main.ts' : '../dist/src/cli/main.js';
const { main } = await import(entry);
await main();
