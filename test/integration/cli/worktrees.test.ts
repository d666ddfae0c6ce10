import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer } from '../../support/scriptedServer';
import { makeSandbox } from '../core/isolation/helpers';

// `subagents run --isolation worktree --base-ref`, and `subagents worktrees`
// showing kept and pooled worktrees with their disk use, `clean` emptying the pool.

test('CLI: run from a base ref, discard into the pool, list kept and pooled with disk use, clean', { timeout: 180_000 }, async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'app.txt': 'main\n' });
  t.after(() => sb.cleanup());
  mkdirSync(path.join(sb.repo, '.claude/agents'), { recursive: true });
  writeFileSync(path.join(sb.repo, '.claude/agents/editor.md'), '---\nname: editor\ndescription: Edits\ntools: Write\n---\nEdit. [agent:editor]\n');
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'agents']);
  sb.git(['checkout', '-q', '-b', 'release']);
  sb.write('app.txt', 'release\n');
  sb.git(['commit', '-qam', 'release']);
  sb.git(['checkout', '-q', 'main']);
  const server = await startScriptedServer((req) => (req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'made.txt', content: 'made\n' } }] } : { text: 'done' }));
  t.after(() => server.close());
  const config = path.join(sb.root, 'config');
  mkdirSync(path.join(config, 'subagents'), { recursive: true });
  writeFileSync(path.join(config, 'subagents', 'settings.json'), JSON.stringify({ 'worktrees.poolSize': 2 }));
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const cli = (...args: string[]) => runCliProcess(args, { env, cwd: sb.repo, timeoutMs: 60_000 });

  const run = await cli('run', 'editor', 'make it', '--isolation', 'worktree', '--base-ref', 'release', '--permission-mode', 'acceptEdits', '--json');
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { agentId: string };
  const kept = JSON.parse((await cli('worktrees', '--json')).stdout) as { worktrees: Array<{ agentId: string; branch: string; state: string; diskBytes: number }>; diskBytes: { kept: number; pooled: number } };
  const [wt] = kept.worktrees;
  assert.equal(wt?.state, 'finished');
  assert.equal(sb.git(['rev-parse', `${wt!.branch}~1`]).trim(), sb.git(['rev-parse', 'release']).trim(), 'it started from release');
  assert.ok(wt!.diskBytes > 0 && kept.diskBytes.kept === wt!.diskBytes);
  assert.match((await cli('worktrees')).stdout, new RegExp(`^Kept with changes \\(1\\), about [\\d.]+ KB:\\n${result.agentId}  finished`));

  const diff = JSON.parse((await cli('worktrees', 'diff', result.agentId, '--json')).stdout) as { agentId: string; diff: string };
  assert.equal(diff.agentId, result.agentId);
  assert.match(diff.diff, /\+\+\+ b\/made\.txt/);
  const discarded = await cli('worktrees', 'discard', result.agentId, '--json');
  assert.equal(discarded.code, 0);
  assert.deepEqual(JSON.parse(discarded.stdout), { discarded: result.agentId });
  const listed = await cli('worktrees');
  assert.match(listed.stdout, /^Pooled for reuse \(1\), about [\d.]+ KB \(delete with "subagents worktrees clean"\):\n {2}.+: 1 pooled, about/);
  assert.doesNotMatch(listed.stdout, /Kept with changes/);
  const pooled = JSON.parse((await cli('worktrees', '--json')).stdout) as { pool: Array<{ worktrees: unknown[] }>; diskBytes: { pooled: number } };
  assert.equal(pooled.pool[0]?.worktrees.length, 1);
  assert.ok(pooled.diskBytes.pooled > 0);

  assert.deepEqual([(await cli('worktrees', 'clean')).stdout], ['Deleted 1 pooled worktree(s).\n']);
  assert.equal((await cli('worktrees')).stdout, 'No worktrees.\n');
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);

  const bad = await cli('run', 'editor', 'make it', '--isolation', 'worktree', '--base-ref', 'no-such', '--permission-mode', 'acceptEdits');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Cannot start editor from "no-such": there is no branch, tag or commit of that name/);
});
