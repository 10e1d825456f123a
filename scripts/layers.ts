/**
 * The folder import graph of src/, read from the TypeScript sources (`ts.preProcessFile`: every `import`,
 * `export … from` and `import()` of a module, type-only imports included). A node is a top-level folder of
 * src/ (`engine`, `http`, …) or a module at its root (`index.ts`, `errors.ts`, …). The layer test
 * (test/repo/layers.test.ts) fails on a circle between folders and on an import that points up the layers;
 * `node scripts/layers.ts` prints the graph, its circles and the counts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(ROOT, 'src');

/** One edge of the graph and one import that makes it (for the message). */
export interface FolderEdge {
  from: string;
  to: string;
  /** `src/a/b.ts → src/c/d.ts`, the first import found for this edge. */
  example: string;
}

/** The folder graph of src/. */
export interface FolderGraph {
  nodes: string[];
  edges: FolderEdge[];
}

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `engine` for src/engine/x.ts, `errors.ts` for src/errors.ts. */
function folderOf(file: string): string {
  const [first, second] = relative(SRC, file).split(sep);
  return second === undefined ? (first ?? '') : (first ?? '');
}

/** Builds the folder graph of src/ from its modules' relative imports. */
export function folderGraph(): FolderGraph {
  const nodes = new Set<string>();
  const edges = new Map<string, FolderEdge>();
  for (const file of modules(SRC)) {
    const from = folderOf(file);
    nodes.add(from);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName);
      if (!target.startsWith(SRC + sep)) continue;
      const to = folderOf(target);
      if (to === from || edges.has(`${from}→${to}`)) continue;
      const example = `${relative(ROOT, file)} → ${relative(ROOT, target)}`;
      edges.set(`${from}→${to}`, { from, to, example });
    }
  }
  return { nodes: [...nodes].sort(), edges: [...edges.values()] };
}

/** The graph's circles: its strongly connected components of more than one folder (Tarjan). */
export function circles(graph: FolderGraph): string[][] {
  const next = new Map<string, string[]>(graph.nodes.map((node) => [node, []]));
  for (const edge of graph.edges) next.get(edge.from)?.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.nodes) if (!index.has(node)) visit(node);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = folderGraph();
  for (const edge of graph.edges.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to))) {
    console.log(`${edge.from} → ${edge.to}   (${edge.example})`);
  }
  const found = circles(graph);
  for (const circle of found) console.log(`circle of ${circle.length}: ${circle.join(', ')}`);
  const inCircles = found.reduce((sum, circle) => sum + circle.length, 0);
  console.log(
    `${graph.nodes.length} folders and root modules, ${graph.edges.length} edges, ` +
      `${found.length} circles, ${inCircles} folders in circles`,
  );
}
