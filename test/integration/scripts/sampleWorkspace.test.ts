// `npm start` makes the sample workspace a git repository of its own (the
// demo's worktree step needs a HEAD). It used to run git with its output
// ignored and its exit codes unchecked: on a machine whose global git config
// signs every commit, runs a failing hook, or knows no user, it left a copy
// without a commit, kept between runs. Here git's global config is all of
// that at once, and the machine's own config is out of the picture.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ensureSampleWorkspace, SAMPLE_WORKSPACE_FIXTURE } from '../../../scripts/product.mjs';

// This file changes process.env; node:test runs each file in its own process.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'subagents-sample-'));
const hooks = path.join(scratch, 'hooks');
const hookLog = path.join(scratch, 'hooks.log');
const hostileConfig = path.join(scratch, 'hostile.gitconfig');
mkdirSync(hooks);
for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit']) {
  writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho "${hook} ran" >> "${hookLog}"\nexit 1\n`);
  chmodSync(path.join(hooks, hook), 0o755);
}
writeFileSync(
  hostileConfig,
  [
    '[commit]\n\tgpgSign = true',
    `[gpg]\n\tprogram = ${path.join(scratch, 'no-such-gpg')}`,
    `[core]\n\thooksPath = ${hooks}`,
    '[init]\n\tdefaultBranch = trunk',
    // No user.name or user.email, and no guessing one from the host.
    '[user]\n\tuseConfigOnly = true',
    '',
  ].join('\n'),
);
process.env.GIT_CONFIG_GLOBAL = hostileConfig;
process.env.GIT_CONFIG_NOSYSTEM = '1';
for (const v of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL']) delete process.env[v];
// As inside a git hook: a repository elsewhere that every git command would use.
process.env.GIT_DIR = path.join(scratch, 'elsewhere.git');

const git = (cwd: string, ...args: string[]) => {
  const env = { ...process.env };
  delete env.GIT_DIR;
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
};

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('the sample workspace becomes a repository on main, committed, whatever the global git config says', () => {
  // The hazard is real: a plain init and commit fail with this config.
  const plain = path.join(scratch, 'plain');
  mkdirSync(plain);
  writeFileSync(path.join(plain, 'a.txt'), 'a\n');
  const env = { ...process.env };
  delete env.GIT_DIR;
  const commit = spawnSync('sh', ['-c', 'git init -q && git add -A && git commit -q -m x'], { cwd: plain, env, encoding: 'utf8' });
  assert.notEqual(commit.status, 0, 'a plain commit was expected to fail with the hostile config');

  const dir = path.join(scratch, 'sample-workspace');
  assert.equal(ensureSampleWorkspace(dir), dir);
  assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
  assert.equal(git(dir, 'rev-list', '--count', 'HEAD'), '1');
  assert.equal(git(dir, 'status', '--porcelain'), '', 'everything is committed');
  const tracked = git(dir, 'ls-files').split('\n');
  assert.ok(tracked.some((f) => f.startsWith('.claude/agents/')), tracked.join(', '));
  assert.equal(git(dir, 'log', '-1', '--format=%an <%ae> %G?'), 'Subagents sample <sample@example.invalid> N');
  assert.equal(existsSync(hookLog), false, 'no hook ran');
  assert.equal(existsSync(process.env.GIT_DIR!), false, 'the inherited GIT_DIR was not used');

  // Kept between runs, with the user's changes.
  writeFileSync(path.join(dir, 'mine.txt'), 'my change\n');
  ensureSampleWorkspace(dir);
  assert.equal(git(dir, 'rev-list', '--count', 'HEAD'), '1');
  assert.equal(git(dir, 'status', '--porcelain'), '?? mine.txt');
  // --reset-workspace starts afresh.
  ensureSampleWorkspace(dir, { reset: true });
  assert.equal(existsSync(path.join(dir, 'mine.txt')), false);
  assert.equal(git(dir, 'rev-list', '--count', 'HEAD'), '1');
});

test('a copy an earlier start left without a commit is committed, the files in it kept', () => {
  const dir = path.join(scratch, 'left-behind');
  execFileSync('cp', ['-R', SAMPLE_WORKSPACE_FIXTURE, dir]);
  writeFileSync(path.join(dir, 'mine.txt'), 'my change\n');
  ensureSampleWorkspace(dir);
  assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
  assert.ok(git(dir, 'ls-files').split('\n').includes('mine.txt'));
});

test('when git fails, the error says so and no half-made copy is left to be kept', () => {
  const broken = path.join(scratch, 'broken.gitconfig');
  writeFileSync(broken, '[core\n');
  process.env.GIT_CONFIG_GLOBAL = broken;
  try {
    const dir = path.join(scratch, 'never-made');
    assert.throws(() => ensureSampleWorkspace(dir), /could not be made a git repository[\s\S]*`git init -q` failed in .*never-made: .*bad config/);
    assert.equal(existsSync(dir), false);
    assert.deepEqual(readdirSync(scratch).filter((f) => f.startsWith('never-made')), []);
  } finally {
    process.env.GIT_CONFIG_GLOBAL = hostileConfig;
  }
});

test('the sample workspace greets a new user without a problem: every agent file in it reads cleanly', () => {
  const out = execFileSync(process.execPath, [path.join(import.meta.dirname, '../../../dist/cli.js'), 'agents', '--json', '--cwd', SAMPLE_WORKSPACE_FIXTURE], { encoding: 'utf8', env: { ...process.env, HOME: mkdtempSync(path.join(os.tmpdir(), 'subagents-home-')) } });
  const listing = JSON.parse(out) as { warnings: Array<{ filePath: string; message: string }>; agents: Array<{ name: string }> };
  assert.deepEqual(listing.warnings, [], 'the Agents view would open on "Problems"');
  assert.ok(listing.agents.some((a) => a.name === 'explainer'), 'the Gemini sample agent is listed');
});
