import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { makeSandbox } from './helpers';

// This file changes process.env; node:test runs each file in its own process.
// No global or system git config, and no guessing an identity from the host:
// a machine where git has no idea who the user is.
process.env.GIT_CONFIG_GLOBAL = path.join(import.meta.dirname, 'does-not-exist.gitconfig');
process.env.GIT_CONFIG_NOSYSTEM = '1';
process.env.GIT_CONFIG_COUNT = '1';
process.env.GIT_CONFIG_KEY_0 = 'user.useConfigOnly';
process.env.GIT_CONFIG_VALUE_0 = 'true';
for (const v of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL']) delete process.env[v];

test('no git identity, commit signing on, and hooks that fail: create, finish and apply still work', async () => {
  const sb = makeSandbox();
  try {
    sb.git(['config', '--unset', 'user.name']);
    sb.git(['config', '--unset', 'user.email']);
    assert.throws(() => sb.git(['var', 'GIT_COMMITTER_IDENT']), 'precondition: git cannot tell who commits');
    // Signing with a program that does not exist would fail any signed commit.
    sb.git(['config', 'commit.gpgSign', 'true']);
    sb.git(['config', 'gpg.program', path.join(sb.root, 'no-such-gpg')]);
    // Hooks that would break or slow down every commit and checkout.
    for (const hook of ['pre-commit', 'commit-msg', 'post-checkout', 'post-commit']) {
      const file = path.join(sb.repo, '.git', 'hooks', hook);
      writeFileSync(file, `#!/bin/sh\necho "${hook} ran" >> "${path.join(sb.root, 'hooks.log')}"\nexit 1\n`);
      chmodSync(file, 0o755);
    }
    sb.write('src/app.ts', 'export const a = "dirty";\n'); // create must commit a snapshot

    const m = sb.manager();
    const rec = await m.create({ cwd: sb.repo, agentName: 'anon', agentId: 'id-1' });
    assert.notEqual(rec.baseCommit, rec.userHead);
    assert.equal(sb.git(['log', '-1', '--format=%an <%ae>', rec.baseCommit]), 'Subagents <subagents@localhost>\n');
    sb.write('out.txt', 'result\n', rec.path);
    const info = await m.finish('id-1');
    assert.equal(info?.filesChanged, 1);
    assert.equal(sb.git(['log', '-1', '--format=%an|%G?', rec.branch]), 'Subagents|N\n', 'fallback identity, unsigned');
    assert.equal(sb.exists(path.join('..', 'hooks.log')), false, 'no user hook ran');
    const outcome = await m.apply('id-1');
    assert.equal(outcome.applied, true);
    assert.equal(sb.read('out.txt'), 'result\n');
  } finally {
    sb.cleanup();
  }
});
