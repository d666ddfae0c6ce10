import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { defaultSettings } from '../../../../src/core/config';
import { openRuntime } from '../../../../src/core/runtime/runtime';
import { scopeCatalogOptions, type ScopeSpec } from '../../../../src/core/runtime/scopeSpec';
import { layout, writeAgent } from '../agents/helpers';

// A runtime's owner that discovered a folder's agents already (the CLI, for
// its trust probes) hands that catalog to the scope; for any scope it has
// none for, the scope discovers as always.

test("a scope takes the catalog its runtime's owner hands it, and discovers for itself when given none", async (t) => {
  const { root, home, cwd } = layout(t);
  writeAgent(cwd, '.claude/agents/helper.md', 'helper');
  const spec = (session: number): ScopeSpec => ({ cwd, surface: 'cli', settings: defaultSettings(), trust: { kind: 'folders', roots: [] }, credentials: {}, env: {}, home, bundledDir: null, session });
  const early = await AgentCatalog.create(scopeCatalogOptions(spec(1)));
  const asked: number[] = [];
  const runtime = await openRuntime({
    dataDir: path.join(root, 'data'),
    settings: defaultSettings,
    log: () => undefined,
    coalesceMs: 0,
    mcpStatusFile: path.join(root, 'mcp.json'),
    recoverWorktrees: false,
    catalogs: async (s) => {
      asked.push(s.session);
      return s.session === 1 ? early : undefined;
    },
  });
  t.after(() => runtime.close());
  assert.equal((await runtime.scope(spec(1))).catalog, early, 'the one discovery serves the scope');
  const own = (await runtime.scope(spec(2))).catalog;
  assert.notEqual(own, early);
  assert.equal(own.find('helper')?.name, 'helper', 'a scope given none discovers the folder itself');
  assert.deepEqual(asked, [1, 2]);
});
