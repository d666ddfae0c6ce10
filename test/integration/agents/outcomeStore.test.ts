import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents, type DiscoveryOptions } from '../../../src/core/agents/discovery';
import { OutcomeStore } from '../../../src/core/agents/outcomeStore';
import { CLI, runCliProcess } from '../../support/cliProcess';
import { layout, writeAgent, writeFile } from './helpers';

// The outcome store lets a fresh process skip files that have not changed
// since the last listing; what it serves must equal what parsing gives.

function options(cwd: string, home: string, extra: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  return { cwd, home, loadClaudePlugins: false, bundledDir: null, ...extra };
}

test('a second process parses only the files that changed, and lists the same agents', async (t) => {
  const { root, home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  for (let i = 0; i < 5; i++) writeAgent(dir, `a${i}.md`, `a${i}`, 'tools: Read, Grep\nmodel: haiku');
  writeFile(path.join(dir, 'broken.md'), '---\nname: broken\n---\n');
  writeFile(path.join(cwd, '.codex/agents/c.toml'), 'name = "c"\ndescription = "d"\ndeveloper_instructions = "x"\n');
  const storeFile = path.join(root, 'store.json');

  const parsed: string[] = [];
  const first = OutcomeStore.open(storeFile, 'v1');
  await discoverAgents(options(cwd, home, { store: first, hooks: { onParse: (f) => parsed.push(f) } }));
  first.save();
  assert.equal(parsed.length, 7);

  // A new process: only the edited file is read and parsed again.
  writeAgent(dir, 'a2.md', 'a2', 'tools: Bash\nmodel: opus');
  parsed.length = 0;
  const second = OutcomeStore.open(storeFile, 'v1');
  const served = await discoverAgents(options(cwd, home, { store: second, hooks: { onParse: (f) => parsed.push(f) } }));
  second.save();
  assert.deepEqual(parsed, [path.join(dir, 'a2.md')]);
  const strip = (agents: typeof served.agents) => agents.map((a) => ({ ...a, systemPrompt: '' }));
  const expected = await discoverAgents(options(cwd, home));
  assert.deepEqual(strip(served.agents), strip(expected.agents));
  assert.deepEqual(served.warnings, expected.warnings);
  assert.equal(served.agents.find((a) => a.name === 'a2')?.model, 'opus');
  // Served from the store: no system prompt (listings only); parsed now: the full one.
  assert.equal(served.agents.find((a) => a.name === 'a1')?.systemPrompt, '');
  assert.equal(served.agents.find((a) => a.name === 'a2')?.systemPrompt, 'You are a2.');

  // Another parser version trusts nothing; a deleted file leaves the store.
  parsed.length = 0;
  writeFileSync(path.join(dir, 'a0.md'), '---\nname: a0\ndescription: d\n---\nx');
  const other = OutcomeStore.open(storeFile, 'v2');
  await discoverAgents(options(cwd, home, { store: other, hooks: { onParse: (f) => parsed.push(f) } }));
  assert.equal(parsed.length, 7);
});

test('an unreadable or foreign store file is an empty store; saving prunes what was not listed', async (t) => {
  const { root, home, cwd } = layout(t);
  writeAgent(path.join(cwd, '.claude/agents'), 'a.md', 'a');
  const storeFile = path.join(root, 'cache', 'store.json');
  writeFile(storeFile, '{ not json');
  const store = OutcomeStore.open(storeFile, 'v1');
  const result = await discoverAgents(options(cwd, home, { store }));
  store.save();
  assert.deepEqual(result.agents.map((a) => a.name), ['a']);
  const saved = JSON.parse(readFileSync(storeFile, 'utf8')) as { version: string; entries: Record<string, unknown> };
  assert.equal(saved.version, 'v1');
  assert.equal(Object.keys(saved.entries).length, 1);
  // No temp files are left behind.
  assert.deepEqual(readdirSync(path.dirname(storeFile)), ['store.json']);
});

test('the built CLI lists the same with its cache warm, cold and off, and sees edits', { skip: !existsSync(CLI) && 'run `npm run build` first' }, async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude/agents');
  for (let i = 0; i < 20; i++) writeAgent(dir, `a${i}.md`, `a${i}`, 'tools: Read');
  const env = { HOME: home, XDG_CACHE_HOME: path.join(home, 'cache') };
  const list = async (...flags: string[]) => {
    const run = await runCliProcess(['agents', '--json', ...flags], { env, cwd });
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as { agents: { name: string; tools: string[] | null }[] };
  };
  const cold = await list();
  assert.equal(readdirSync(path.join(home, 'cache', 'subagents', 'listings')).length, 1);
  const warm = await list();
  assert.deepEqual(warm, cold);
  writeAgent(dir, 'a3.md', 'a3', 'tools: Bash, Grep');
  const edited = await list();
  assert.deepEqual(edited.agents.find((a) => a.name === 'a3')?.tools, ['Bash', 'Grep']);
  assert.deepEqual(await list('--no-cache'), edited);
});
