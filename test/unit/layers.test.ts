import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

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

// DESIGN.md: the core, the protocol, the CLI, the language server and the
// webview run without VS Code; only src/vscode/ may import it.
for (const layer of ['src/core', 'src/protocol', 'src/cli', 'src/server', 'webview-ui/src']) {
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
