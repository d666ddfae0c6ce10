import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mts)$/.test(name)) out.push(full);
  }
  return out;
}

// The core, the protocol, the surfaces, the CLI, the language server and the
// webview run without VS Code; only src/vscode/ may import it
// (docs/architecture-layers.md). The lint rules say the same; this test keeps
// it true even where lint is skipped.
for (const layer of ['src/core', 'src/protocol', 'src/surfaces', 'src/cli', 'src/server', 'src/host', 'webview-ui/src']) {
  test(`${layer} does not import vscode or src/vscode`, () => {
    const offenders = sourceFiles(path.join(root, layer)).filter((file) => {
      const text = readFileSync(file, 'utf8');
      return /from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|from\s+['"][./]*\/vscode\//.test(text);
    });
    assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
  });
}

test('the protocol stays small enough for the webview: zod/mini only, no core schemas', () => {
  for (const file of sourceFiles(path.join(root, 'src/protocol'))) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /from\s+['"]zod['"]/, `${path.relative(root, file)} imports full zod`);
    assert.doesNotMatch(text, /agents\/definition['"]/, `${path.relative(root, file)} imports the zod-based definition module`);
  }
});

/** Each file's relative imports, resolved to files, type-only ones included. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = path.resolve(path.dirname(file), fileName);
      const hit = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => files.includes(candidate));
      if (hit) targets.push(hit);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.map((f) => path.relative(root, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

// A cycle means a type or a helper sits in the wrong file. The linter's
// no-cycle skips type-only imports; this check counts them, so two files
// that only share types cannot lean on each other either.
test('src has no import cycles, type-only imports included', () => {
  assert.deepEqual(cycles(importGraph(sourceFiles(path.join(root, 'src')))), []);
});

/** The layer a file belongs to: a folder of src/core, or a folder of src/. */
function layerOf(file: string): string {
  const parts = path.relative(path.join(root, 'src'), file).split(path.sep);
  return parts[0] === 'core' && parts.length > 2 ? `src/core/${parts[1]}` : `src/${parts.length > 1 ? parts[0] : '.'}`;
}

// The folder map is the layer map: a layer's files may import each other, but
// if two layers import each other (types included), neither sits above the
// other and docs/architecture-layers.md cannot say where either belongs.
test('no two layers (the folders of src and of src/core) import each other, directly or around a loop', () => {
  const layers = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph(sourceFiles(path.join(root, 'src')))) {
    const from = layerOf(file);
    const out = layers.get(from) ?? new Set<string>();
    for (const target of targets) if (layerOf(target) !== from) out.add(path.join(root, layerOf(target)));
    layers.set(from, out);
  }
  const graph = new Map([...layers].map(([layer, out]) => [path.join(root, layer), [...out]]));
  assert.deepEqual(cycles(graph), []);
});
