import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { protectedReason, protectedTarget } from '../../../../src/core/tools/protectedPaths';

test('protected paths: settings and hook folders, git internals, editor and shell start-up files; not agent definitions or ordinary files', () => {
  for (const p of ['.claude/settings.json', '.claude/settings.local.json', '.claude/hooks/start.sh', '.git/config', '.git/hooks/pre-commit', '.vscode/tasks.json', 'sub/.VSCode/settings.json', '.idea/workspace.xml', '.husky/pre-push', '.subagents/settings.json', '.envrc', '.mcp.json', 'pkg/.gitmodules', '.bashrc', '.zshrc', '.profile', '.claude/agents']) {
    assert.ok(protectedReason(p), `${p} is protected`);
  }
  for (const p of ['src/app.ts', '.claude/agents/helper.md', '.claude/agents/nested/x.md', 'docs/claude/settings.json', '.github/agents/x.agent.md', 'README.md', '.gitignore', 'git/config']) {
    assert.equal(protectedReason(p), null, `${p} is not protected`);
  }
  assert.match(protectedReason('.claude/settings.json')!, /inside \.claude\//);
  assert.match(protectedReason('x/.envrc')!, /\.envrc runs commands/);
});

test('the folder core.hooksPath points to is protected like .git/hooks, however it is reached', async (t) => {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'subagents-hookspath-'));
  t.after(() => rm(repo, { recursive: true, force: true }));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  await mkdir(path.join(repo, '.githooks'));
  await writeFile(path.join(repo, '.githooks', 'pre-commit'), '#!/bin/sh\n');
  await mkdir(path.join(repo, 'src'));
  assert.equal(await protectedTarget(repo, '.githooks/pre-commit'), null, 'an ordinary folder while git does not use it');
  git('config', 'core.hooksPath', '.githooks');
  assert.match((await protectedTarget(repo, '.githooks/pre-commit'))!, /the folder git runs hooks from \(core\.hooksPath\)/);
  assert.ok(await protectedTarget(repo, '.githooks/post-checkout'), 'a new hook too');
  assert.ok(await protectedTarget(path.join(repo, 'src'), '../.githooks/pre-push'), 'from a subfolder');
  await symlink(path.join(repo, '.githooks'), path.join(repo, 'src', 'tools'));
  assert.ok(await protectedTarget(repo, 'src/tools/pre-commit'), 'through a symlink');
  assert.equal(await protectedTarget(repo, 'src/app.ts'), null);
  assert.equal(await protectedTarget(os.tmpdir(), path.join(path.basename(repo), 'src', 'x.ts')), null, 'outside the hooks folder');
});
