import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents, discoverListed, listAgentDirs, type DiscoveryOptions } from '../../../../src/core/agents/catalog/discovery';
import { listingFingerprint } from '../../../../src/core/agents/catalog/listing';
import { layout, writeAgent, writeFile } from './helpers';

// The fingerprint stands for a whole discovery result (the CLI prints its
// last answer again while it holds): whatever can change the result must
// change it, and nothing else may.

function options(cwd: string, home: string, extra: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  return { cwd, home, loadClaudePlugins: false, bundledDir: null, ...extra };
}

test('a listing fingerprint changes with every change discovery would see, and only then', async (t) => {
  const { root, home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  const a = writeAgent(dir, 'a.md', 'a', 'tools: Read');
  writeAgent(dir, 'nested/b.md', 'b');
  writeAgent(path.join(home, '.claude/agents'), 'u.md', 'u');
  const plugin = path.join(root, 'plugin');
  writeFile(path.join(plugin, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'kit' }));
  writeAgent(path.join(plugin, 'agents'), 'p.md', 'p');
  const fingerprint = async (extra: Partial<DiscoveryOptions> = {}, salt = 'v1') => listingFingerprint(await listAgentDirs(options(cwd, home, { pluginDirs: [plugin], ...extra })), salt);

  const before = await fingerprint();
  assert.equal(await fingerprint(), before, 'nothing changed: the same fingerprint');
  assert.notEqual(await fingerprint({}, 'v2'), before, 'another build');
  assert.notEqual(await fingerprint({ pluginDirs: [] }), before, 'a plugin dir less');

  const seen = new Set([before]);
  const changed = async (what: string, change: () => void) => {
    change();
    const now = await fingerprint();
    assert.ok(!seen.has(now), `${what} must change the fingerprint`);
    seen.add(now);
  };
  await changed('an edit of the same size', () => {
    const time = statSync(a).mtime;
    writeFileSync(a, readFileSync(a, 'utf8').replace('Read', 'Bash'));
    utimesSync(a, time, new Date(time.getTime() + 1000));
  });
  await changed('an edit that keeps the modification time', () => {
    const { atime, mtime } = statSync(a);
    writeFileSync(a, readFileSync(a, 'utf8').replace('Bash', 'Grep'));
    utimesSync(a, atime, mtime);
  });
  await changed('a file made unreadable', () => chmodSync(a, 0o000));
  await changed('a new file', () => writeAgent(dir, 'c.md', 'c'));
  await changed('a renamed file', () => renameSync(path.join(dir, 'c.md'), path.join(dir, 'd.md')));
  await changed('a deleted file in a subfolder', () => rmSync(path.join(dir, 'nested/b.md')));
  await changed('a new agents dir of another family', () => writeAgent(path.join(cwd, '.gemini/agents'), 'g.md', 'g'));
  await changed("a broken plugin manifest (a resolving warning, another plugin name)", () => writeFile(path.join(plugin, '.claude-plugin/plugin.json'), '{ nope'));
  await changed('a user agent deleted', () => rmSync(path.join(home, '.claude/agents/u.md')));
});

test('discovery over a listing equals discovery from scratch', async (t) => {
  const { home, cwd } = layout(t);
  writeAgent(path.join(cwd, '.claude/agents'), 'a.md', 'a');
  writeAgent(path.join(home, '.claude/agents'), 'a.md', 'a');
  writeFile(path.join(cwd, '.codex/agents/c.toml'), 'name = "c"\ndescription = "d"\ndeveloper_instructions = "x"\n');
  const listing = await listAgentDirs(options(cwd, home));
  assert.deepEqual(await discoverListed(listing, options(cwd, home)), await discoverAgents(options(cwd, home)));
});
