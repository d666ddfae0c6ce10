import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents, type DiscoveryOptions } from '../../../../src/core/agents/catalog/discovery';
import { OutcomeStore } from '../../../../src/core/agents/catalog/outcomeStore';
import { CODEX_CASES } from '../../../fixtures/formats/codex';
import { COPILOT_CASES } from '../../../fixtures/formats/copilot';
import { GEMINI_CASES } from '../../../fixtures/formats/gemini';
import { OH_MY_PI_CASES } from '../../../fixtures/formats/ohMyPi';
import { CLI, runCliProcess } from '../../../support/cliProcess';
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
  const storedFiles = () => {
    const saved = JSON.parse(readFileSync(storeFile, 'utf8')) as { version: string; dirs: Record<string, Record<string, unknown>> };
    assert.equal(saved.version, 'v1');
    return Object.values(saved.dirs).flatMap((files) => Object.keys(files));
  };
  assert.deepEqual(storedFiles(), ['a.md']);
  // No temp files are left behind.
  assert.deepEqual(readdirSync(path.dirname(storeFile)), ['store.json']);

  // A file that is no longer listed leaves the store at the next save, even when nothing was parsed.
  writeAgent(path.join(cwd, '.claude/agents'), 'b.md', 'b');
  const withB = OutcomeStore.open(storeFile, 'v1');
  await discoverAgents(options(cwd, home, { store: withB }));
  withB.save();
  assert.deepEqual(storedFiles().sort(), ['a.md', 'b.md']);
  rmSync(path.join(cwd, '.claude/agents/a.md'));
  const withoutA = OutcomeStore.open(storeFile, 'v1');
  await discoverAgents(options(cwd, home, { store: withoutA }));
  withoutA.save();
  assert.deepEqual(storedFiles(), ['b.md']);
});

test('every format round-trips through the store: what a warm listing serves equals what parsing gives', async (t) => {
  // The store leaves out what most definitions hold and puts it back: every field any format sets must survive.
  const { root, home, cwd } = layout(t);
  const where = (relPath: string) => (relPath.startsWith('~/') ? path.join(home, relPath.slice(2)) : path.join(cwd, relPath));
  const cases = [...COPILOT_CASES, ...GEMINI_CASES, ...OH_MY_PI_CASES, ...CODEX_CASES];
  for (const c of cases) writeFile(where(c.path), c.text);
  const plugin = path.join(root, 'plugin');
  writeFile(path.join(plugin, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'kit' }));
  writeAgent(path.join(plugin, 'agents'), 'p.md', 'p', 'permissionMode: plan\nmaxTurns: 3\ncolor: red');
  writeAgent(path.join(cwd, '.claude/agents'), 'full.md', 'full', 'tools: Read\ndisallowedTools: Bash\nmodel: opus\neffort: high\nmaxTurns: 4\npermissionMode: acceptEdits\nisolation: worktree\nbackground: true\ncolor: blue\nfavourite: 7\ninitialPrompt: start here');
  const storeFile = path.join(root, 'store.json');
  const discover = (extra: Partial<DiscoveryOptions>) => discoverAgents(options(cwd, home, { pluginDirs: [plugin], ...extra }));

  const first = OutcomeStore.open(storeFile, 'v1');
  await discover({ store: first });
  first.save();
  const parsed: string[] = [];
  const warm = await discover({ store: OutcomeStore.open(storeFile, 'v1'), hooks: { onParse: (f) => parsed.push(f) } });
  const fresh = await discover({});
  assert.deepEqual(parsed, [], 'a warm listing parses nothing');
  const listed = (result: typeof fresh) => ({
    agents: result.agents.map((a) => ({ ...a, systemPrompt: '' })),
    shadowed: result.shadowed.map((s) => ({ ...s, definition: { ...s.definition, systemPrompt: '' } })),
    warnings: result.warnings,
    aliases: result.aliases,
  });
  assert.ok(fresh.agents.length > 60 && fresh.warnings.length > 5, 'the fixtures load many agents and warn about some files');
  assert.deepEqual(listed(warm), listed(fresh));
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
  // One listing: its per-file outcomes and its last answer.
  assert.deepEqual(readdirSync(path.join(home, 'cache', 'subagents', 'listings')).map((name) => name.slice(name.indexOf('.'))).sort(), ['.json', '.json.out']);
  const warm = await list();
  assert.deepEqual(warm, cold);
  writeAgent(dir, 'a3.md', 'a3', 'tools: Bash, Grep');
  const edited = await list();
  assert.deepEqual(edited.agents.find((a) => a.name === 'a3')?.tools, ['Bash', 'Grep']);
  assert.deepEqual(await list('--no-cache'), edited);

  // An unchanged listing prints the answer saved last time, without discovering anything: a planted answer shows it.
  const listings = path.join(home, 'cache', 'subagents', 'listings');
  const saved = readdirSync(listings).find((name) => name.endsWith('.json.out'))!;
  // The file is `<the fingerprint's length>\n<the fingerprint><the answer>`.
  const savedText = readFileSync(path.join(listings, saved), 'utf8');
  const header = savedText.slice(0, savedText.indexOf('\n') + 1);
  const fingerprint = savedText.slice(header.length, header.length + Number(header.trim()));
  assert.match(fingerprint, /a3\.md/, 'the fingerprint names the listed files');
  const plant = (print: string) => writeFileSync(path.join(listings, saved), `${header}${print}{"agents":[{"name":"planted","tools":null}]}\n`);
  // Behind a fingerprint of the same length that differs in one file's name, a planted answer is not taken.
  plant(fingerprint.replace('a3.md', 'a4.md'));
  assert.equal((await list()).agents.length, edited.agents.length);
  plant(fingerprint);
  assert.deepEqual((await list()).agents.map((a) => a.name), ['planted']);
  // Other output formats have answers of their own; --no-cache and any change to the files discover again.
  const text = await runCliProcess(['agents'], { env, cwd });
  assert.match(text.stdout, new RegExp(`^${edited.agents.length} agents for `));
  assert.equal((await list('--no-cache')).agents.length, edited.agents.length);
  assert.deepEqual((await list()).agents.map((a) => a.name), ['planted']);
  writeAgent(dir, 'new.md', 'new');
  assert.equal((await list()).agents.length, edited.agents.length + 1);

  // Listings no run has written for a month are forgotten when another listing is saved.
  const stale = path.join(listings, 'gone-folder.json.out');
  writeFileSync(stale, 'x\n{}');
  const monthAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
  utimesSync(stale, monthAgo, monthAgo);
  writeAgent(dir, 'newer.md', 'newer');
  await list();
  assert.equal(existsSync(stale), false);
  assert.equal(readdirSync(listings).filter((name) => name.endsWith('.out')).length, 2, 'this listing keeps its answers (json and text)');
});
