/**
 * The folders of src/ point one way, top to bottom (docs/guides/contributing.md, "Layers"): this builds the
 * folder import graph from the TypeScript sources (scripts/layers.ts) and fails on a circle between folders
 * and on any import that points up the list below.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { circles, folderGraph, type FolderGraph } from '../../scripts/layers.ts';

/** The layers of src/, top first: a folder (or root module) imports only those after it. */
const LAYERS = [
  'index.ts',
  'cli',
  'mcp',
  'console',
  'tools',
  'client',
  'testing',
  'engine',
  'http',
  'jobs',
  'observability',
  'contract',
  'resilience',
  'index-builder',
  'pipeline',
  'models',
  'documents',
  'stores',
  'scheduling',
  'text',
  'package-info.ts',
  'options.ts',
  'errors.ts',
] as const;

function upward(graph: FolderGraph): string[] {
  const rank = new Map<string, number>(LAYERS.map((name, index) => [name, index]));
  return graph.edges
    .filter((edge) => (rank.get(edge.from) ?? -1) >= (rank.get(edge.to) ?? -1))
    .map((edge) => `${edge.from} → ${edge.to}   (${edge.example})`);
}

describe('the layers of src/', () => {
  const graph = folderGraph();

  it('names every folder and root module of src/ in its list of layers', () => {
    expect(graph.nodes.filter((node) => !(LAYERS as readonly string[]).includes(node))).toEqual([]);
  });

  it('has no import pointing up the layers', () => {
    expect(upward(graph)).toEqual([]);
  });

  it('pipeline/ imports nothing above it', () => {
    expect(upward(graph).filter((edge) => edge.startsWith('pipeline →'))).toEqual([]);
  });

  it('has no circle between folders', () => {
    expect(circles(graph)).toEqual([]);
  });

  it("matches the contributing guide: its layout map names every folder, its drawing the layers' order", () => {
    const guide = readFileSync(new URL('../../docs/guides/contributing.md', import.meta.url), 'utf8');
    const folders = graph.nodes.filter((node) => !node.endsWith('.ts'));
    expect(folders.filter((folder) => !guide.includes(`src/${folder}/`))).toEqual([]);
    const drawing = /### Layers[\s\S]*?```text\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    const drawn = drawing
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => (line.split(/ {3,}/)[0] ?? '').split(/ {2}/));
    expect(drawn).toEqual([...LAYERS]);
  });

  it('finds a circle and an upward import when there is one', () => {
    const made: FolderGraph = {
      nodes: ['engine', 'pipeline'],
      edges: [
        { from: 'engine', to: 'pipeline', example: 'src/engine/a.ts → src/pipeline/b.ts' },
        { from: 'pipeline', to: 'engine', example: 'src/pipeline/b.ts → src/engine/a.ts' },
      ],
    };
    expect(circles(made)).toEqual([['engine', 'pipeline']]);
    expect(upward(made)).toEqual(['pipeline → engine   (src/pipeline/b.ts → src/engine/a.ts)']);
  });
});
