import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { selectHooks } from '../../../../src/core/hooks/hookSettings';
import { HookSettingsFiles } from '../../../../src/core/hooks/hookSettingsFiles';

async function tempTree(): Promise<{ root: string; home: string; repo: string; deep: string; close(): Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-hooks-files-'));
  const home = path.join(root, 'home');
  const repo = path.join(root, 'work', 'repo');
  const deep = path.join(repo, 'packages', 'app', 'src');
  await mkdir(deep, { recursive: true });
  await mkdir(path.join(home, '.claude'), { recursive: true });
  return { root, home, repo, deep, close: () => rm(root, { recursive: true, force: true }) };
}

const stopHooks = (command: string, matcher?: string) => JSON.stringify({ hooks: { SubagentStop: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command }] }] } });

async function writeSettings(dir: string, file: string, text: string): Promise<string> {
  await mkdir(path.join(dir, '.claude'), { recursive: true });
  const full = path.join(dir, '.claude', file);
  await writeFile(full, text);
  return full;
}

test('user, nearest project and project-local settings are found and merged in that order', async () => {
  const t = await tempTree();
  try {
    await writeSettings(t.home, 'settings.json', stopHooks('user'));
    await writeSettings(path.dirname(t.repo), 'settings.json', stopHooks('too-far-up'));
    await writeSettings(t.repo, 'settings.json', stopHooks('project'));
    await writeSettings(t.repo, 'settings.local.json', stopHooks('local'));
    const files = new HookSettingsFiles({ home: t.home, log: () => undefined });
    const sources = await files.sources(t.deep, () => true);
    assert.equal(sources.projectDir, t.repo, 'the nearest ancestor with .claude settings');
    assert.deepEqual(selectHooks(sources.settings, 'SubagentStop', 'a').map((h) => h.command), ['user', 'project', 'local']);
    assert.deepEqual(selectHooks(sources.settings, 'SubagentStop', 'a').map((h) => path.relative(t.root, h.source)), [
      'home/.claude/settings.json',
      'work/repo/.claude/settings.json',
      'work/repo/.claude/settings.local.json',
    ]);

    // A project with only settings.local.json is a project too.
    await rm(path.join(t.repo, '.claude', 'settings.json'));
    assert.deepEqual(selectHooks((await files.sources(t.deep, () => true)).settings, 'SubagentStop', 'a').map((h) => h.command), ['user', 'local']);
  } finally {
    await t.close();
  }
});

test('untrusted: only the user file; the project dir is the agent cwd', async () => {
  const t = await tempTree();
  try {
    await writeSettings(t.home, 'settings.json', stopHooks('user'));
    await writeSettings(t.repo, 'settings.json', stopHooks('project'));
    const sources = await new HookSettingsFiles({ home: t.home, log: () => undefined }).sources(t.deep, () => false);
    assert.equal(sources.projectDir, t.deep);
    assert.equal(sources.untrustedProjectDir, t.repo, 'the folder left out is named');
    assert.deepEqual(selectHooks(sources.settings, 'SubagentStop', 'a').map((h) => h.command), ['user']);
  } finally {
    await t.close();
  }
});

test('the home dir is never a project: user hooks are not read twice for an agent working under home', async () => {
  const t = await tempTree();
  try {
    await writeSettings(t.home, 'settings.json', stopHooks('user'));
    const inHome = path.join(t.home, 'code', 'thing');
    await mkdir(inHome, { recursive: true });
    const sources = await new HookSettingsFiles({ home: t.home, log: () => undefined }).sources(inHome, () => true);
    assert.equal(sources.projectDir, inHome);
    assert.deepEqual(selectHooks(sources.settings, 'SubagentStop', 'a').map((h) => h.command), ['user']);
  } finally {
    await t.close();
  }
});

test('files are parsed once per version: unchanged → cached (one warning), edited or replaced → read again', async () => {
  const t = await tempTree();
  try {
    const warnings: string[] = [];
    const files = new HookSettingsFiles({ home: t.home, log: (_level, message) => warnings.push(message) });
    const file = await writeSettings(t.repo, 'settings.json', '{ not json');
    await Promise.all([files.sources(t.repo, () => true), files.sources(t.repo, () => true)]);
    const first = await files.sources(t.repo, () => true);
    assert.equal(warnings.length, 1, `one warning per file version, concurrent reads included: ${warnings.join(' | ')}`);
    assert.match(warnings[0]!, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON`));
    assert.deepEqual(selectHooks(first.settings, 'SubagentStop', 'a'), []);

    await writeFile(file, stopHooks('fixed'));
    const fixed = await files.sources(t.repo, () => true);
    assert.deepEqual(selectHooks(fixed.settings, 'SubagentStop', 'a').map((h) => h.command), ['fixed']);
    assert.equal((await files.sources(t.repo, () => true)).settings[0], fixed.settings[0], 'unchanged: the same parsed object, not a new read');

    // Same size: an atomic replace (new inode) is still seen.
    const replacement = `${file}.tmp`;
    await writeFile(replacement, stopHooks('fixes'));
    await rename(replacement, file);
    assert.deepEqual(selectHooks((await files.sources(t.repo, () => true)).settings, 'SubagentStop', 'a').map((h) => h.command), ['fixes']);

    await writeFile(file, '{ broken again');
    await files.sources(t.repo, () => true);
    assert.equal(warnings.length, 2, 'a new broken version warns again');
  } finally {
    await t.close();
  }
});

test('a missing home or settings dir is simply no hooks', async () => {
  const files = new HookSettingsFiles({ home: '/nonexistent-home-for-test', log: () => assert.fail('nothing to warn about') });
  const sources = await files.sources('/nonexistent-dir/for/test', () => true);
  assert.deepEqual(sources, { projectDir: '/nonexistent-dir/for/test', settings: [], untrustedProjectDir: null });
});

test('the baseline: hooks a file held when the session started count; hooks added later, or in a file written later, do not', async () => {
  const t = await tempTree();
  try {
    const before = await writeSettings(t.repo, 'settings.json', stopHooks('echo configured'));
    await new Promise((r) => setTimeout(r, 80));
    const files = new HookSettingsFiles({ home: t.home, log: () => undefined });
    const hooksIn = async (cwd: string) => selectHooks((await files.sources(cwd, () => true)).settings, 'SubagentStop', 'any');

    const [configured] = await hooksIn(t.deep);
    assert.equal(files.inBaseline(configured!), true, 'in the file before the session started');

    await writeFile(before, JSON.stringify({ hooks: { SubagentStop: [{ hooks: [{ type: 'command', command: 'echo configured' }, { type: 'command', command: 'echo added' }] }] } }));
    const afterEdit = await hooksIn(t.deep);
    assert.deepEqual(afterEdit.map((h) => [h.command, files.inBaseline(h)]), [['echo configured', true], ['echo added', false]], 'an edit keeps the baseline of the first read');

    // A folder with no settings file at first; one appears during the session.
    const fresh = path.join(t.deep, 'sub');
    await mkdir(fresh, { recursive: true });
    await writeSettings(fresh, 'settings.local.json', stopHooks('echo planted'));
    const planted = (await hooksIn(fresh)).find((h) => h.command === 'echo planted')!;
    assert.equal(files.inBaseline(planted), false, 'a file written during the session has an empty baseline');
  } finally {
    await t.close();
  }
});

test("an isolated agent's worktree checkout has the baseline of the repository's file, not an empty one", async () => {
  const t = await tempTree();
  try {
    await writeSettings(t.repo, 'settings.json', stopHooks('echo committed'));
    await new Promise((r) => setTimeout(r, 80));
    const files = new HookSettingsFiles({ home: t.home, log: () => undefined });
    // The worktree is made during the session: its copy of the file is newer than the session.
    const worktree = path.join(t.root, 'worktrees', 'reviewer-1');
    const checkout = await writeSettings(worktree, 'settings.json', stopHooks('echo committed'));
    const hooksIn = async (origin: { path: string; repoRoot: string } | null) =>
      selectHooks((await files.sources(path.join(worktree, 'packages'), () => true, origin)).settings, 'SubagentStop', 'any').map((h) => [h.command, files.inBaseline(h)]);
    const origin = { path: worktree, repoRoot: t.repo };
    assert.deepEqual(await hooksIn(origin), [['echo committed', true]]);
    // A hook the agent adds to its checkout is still new.
    await writeFile(checkout, JSON.stringify({ hooks: { SubagentStop: [{ hooks: [{ type: 'command', command: 'echo committed' }, { type: 'command', command: 'echo sneaked in' }] }] } }));
    assert.deepEqual(await hooksIn(origin), [['echo committed', true], ['echo sneaked in', false]]);
    // A settings file the repository does not have has nothing to vouch for it.
    await writeSettings(worktree, 'settings.local.json', stopHooks('echo local'));
    assert.deepEqual((await hooksIn(origin)).find(([command]) => command === 'echo local'), ['echo local', false]);
  } finally {
    await t.close();
  }
});
