import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CliIO } from '../../../src/cli/command';
import { RunCatalog } from '../../../src/cli/runCatalog';
import { cliScope } from '../../../src/cli/scope';
import { cliSettings } from '../../../src/cli/settingsFiles';
import { TRUST_EVERYTHING } from '../../../src/core/trust/projectTrust';

// `subagents run` in its own process discovers the folder's agents once:
// the trust probes read them from the run's catalog, and the run's scope
// takes that catalog when it would have discovered the same folders.

function workspace(t: TestContext) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-runcatalog-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(path.join(cwd, '.claude', 'agents'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(cwd, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: Helps\n---\nYou help.\n');
  let stderr = '';
  const io: CliIO = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => ((stderr += text), true) },
    env: { HOME: home, XDG_CONFIG_HOME: path.join(root, 'config') },
    cwd,
    signal: new AbortController().signal,
  };
  return { root, cwd, io, stderr: () => stderr };
}

test("the run's catalog serves the trust probes and then the scope it was discovered for, once", async (t) => {
  const w = workspace(t);
  const catalog = RunCatalog.start(w.io, w.cwd, { trustProject: false, pluginDirs: [] });
  t.after(() => catalog.dispose());
  assert.deepEqual((await catalog.agents()).filter((a) => a.source === 'project').map((a) => a.name), ['helper']);
  const spec = cliScope(w.io, { cwd: w.cwd, settings: cliSettings(w.io, w.cwd), pluginDirs: [] });
  const taken = await catalog.take(spec);
  assert.ok(taken, 'the scope discovering the same folders takes it');
  assert.equal(taken.find('helper')?.name, 'helper');
  assert.equal(catalog.take(spec), undefined, 'a second scope discovers for itself');
  taken.dispose();
});

test('a scope whose settings read other folders discovers for itself; what no scope took stops watching', async (t) => {
  const w = workspace(t);
  const plugins = path.join(w.root, 'plugins', 'p');
  mkdirSync(path.join(plugins, 'agents'), { recursive: true });
  const catalog = RunCatalog.start(w.io, w.cwd, { trustProject: false, pluginDirs: [] });
  const settings = cliSettings(w.io, w.cwd);
  assert.equal(catalog.take(cliScope(w.io, { cwd: w.cwd, settings, pluginDirs: [plugins] })), undefined, 'another plugin folder');
  assert.equal(catalog.take(cliScope(w.io, { cwd: w.cwd, settings: { ...settings, loadClaudePlugins: !settings.loadClaudePlugins }, pluginDirs: [] })), undefined, 'plugins loaded otherwise');
  catalog.dispose();
  assert.equal(catalog.take(cliScope(w.io, { cwd: w.cwd, settings, pluginDirs: [] })), undefined, 'disposed');
});

test('with --trust-project the catalog is discovered with the settings a trusted project file gives', async (t) => {
  const w = workspace(t);
  const plugins = path.join(w.cwd, 'plugins', 'p');
  mkdirSync(path.join(plugins, 'agents'), { recursive: true });
  writeFileSync(path.join(plugins, 'agents', 'lint.md'), '---\nname: lint\ndescription: Lints\n---\nYou lint.\n');
  mkdirSync(path.join(w.cwd, '.subagents'));
  writeFileSync(path.join(w.cwd, '.subagents', 'settings.json'), JSON.stringify({ pluginDirs: ['plugins/p'] }));
  const catalog = RunCatalog.start(w.io, w.cwd, { trustProject: true, pluginDirs: [] });
  t.after(() => catalog.dispose());
  assert.ok((await catalog.agents()).some((a) => a.name === 'p:lint'), "the project file's plugin folder is read");
  assert.equal(w.stderr(), '', 'read quietly: the command says what is wrong with the settings');
  const settings = cliSettings(w.io, w.cwd, { trust: TRUST_EVERYTHING });
  const taken = await catalog.take(cliScope(w.io, { cwd: w.cwd, settings, trust: TRUST_EVERYTHING, pluginDirs: [] }));
  assert.ok(taken);
  taken.dispose();
});
