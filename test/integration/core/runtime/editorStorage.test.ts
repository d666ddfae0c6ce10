import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { defaultSettings } from '../../../../src/core/config';
import { openRuntime } from '../../../../src/core/runtime/runtime';
import type { ScopeSpec } from '../../../../src/core/runtime/scopeSpec';
import { layout, writeFile } from '../agents/helpers';

// Roo Code's global modes live in the editor's own storage folder: the
// runtime's catalog reads them from the folder the window says, so a mode
// the Agents view lists is one a run can start.

test("a scope reads Roo Code's global modes from the editor storage folder its spec names", async (t) => {
  const { root, home, cwd } = layout(t);
  const editorStorage = path.join(root, 'Code - Insiders', 'User', 'globalStorage');
  writeFile(path.join(editorStorage, 'rooveterinaryinc.roo-cline', 'settings', 'custom_modes.yaml'), 'customModes:\n  - slug: global-docs\n    name: Global Docs\n    roleDefinition: You write docs.\n    groups: [read]\n');
  const runtime = await openRuntime({ dataDir: path.join(root, 'data'), settings: defaultSettings, log: () => undefined, coalesceMs: 0, mcpStatusFile: path.join(root, 'mcp.json'), recoverWorktrees: false });
  t.after(() => runtime.close());
  const spec = (storage?: string): ScopeSpec => ({ cwd, surface: 'vscode', settings: defaultSettings(), trust: { kind: 'window', trusted: true }, credentials: {}, env: {}, home, bundledDir: null, session: 1, ...(storage ? { editorStorage: storage } : {}) });
  assert.equal((await runtime.scope(spec(editorStorage))).catalog.find('global-docs')?.format, 'roo');
  // Another editor's storage is another scope, which does not see it.
  assert.equal((await runtime.scope(spec())).catalog.find('global-docs'), undefined);
});
