import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../../../src/core/childEnv';
import { currentBranch } from '../../../src/core/engine/loop/systemPrompt';
import { git } from '../../../src/core/isolation/git';

test('child processes never get ANTHROPIC_* variables', () => {
  const env = childEnv({ PATH: '/bin', ANTHROPIC_API_KEY: 'sk-secret', anthropic_base_url: 'x', HOME: '/h' });
  assert.deepEqual(env, { PATH: '/bin', HOME: '/h' });
});

test('the git the engine and the worktree manager run does not see the API key', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'subagents-env-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A fake git first on PATH records the environment it was started with.
  const fake = path.join(dir, 'git');
  writeFileSync(fake, `#!/bin/sh\nenv > "${dir}/env-$$.txt"\necho main\n`);
  chmodSync(fake, 0o755);
  const saved = { PATH: process.env.PATH, KEY: process.env.ANTHROPIC_API_KEY };
  process.env.PATH = `${dir}:${process.env.PATH}`;
  process.env.ANTHROPIC_API_KEY = 'sk-must-not-leak';
  t.after(() => {
    process.env.PATH = saved.PATH;
    if (saved.KEY === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved.KEY;
  });
  assert.equal(await currentBranch(dir), 'main');
  await git(['status'], { cwd: dir }).catch(() => undefined);
  const dumps = readdirSync(dir).filter((f) => f.startsWith('env-'));
  assert.equal(dumps.length, 2);
  for (const dump of dumps) assert.doesNotMatch(readFileSync(path.join(dir, dump), 'utf8'), /sk-must-not-leak|ANTHROPIC_API_KEY/);
});
