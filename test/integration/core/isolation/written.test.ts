import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { WorktreeManager } from '../../../../src/core/isolation';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';
import { makeSandbox, type Sandbox } from './helpers';

/**
 * An isolated agent's finish stages only the files its own tools wrote when
 * nothing else can have changed its worktree, and everything otherwise.
 * Staging too little loses work, so each fallback is checked by what ends up
 * on the branch.
 */

function sandbox(t: { after: (fn: () => void) => void }): Sandbox {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'src/app.ts': 'export const a = 1;\n', '.gitignore': 'build/\n' });
  t.after(() => sb.cleanup());
  return sb;
}

const onBranch = (sb: Sandbox, branch: string, base: string) => sb.git(['diff', '--name-only', base, branch]).trim().split('\n').filter(Boolean).sort();

test('finish with the written files stages exactly those: what else lies in the worktree stays out of the commit', async (t) => {
  const sb = sandbox(t);
  const m = sb.manager();
  const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: 'only-1' });
  sb.write('src/app.ts', 'export const a = 2;\n', rec.path);
  sb.write('docs/new file [1].md', 'new\n', rec.path);
  sb.write('stray.txt', 'not written by the agent\n', rec.path);
  const info = await m.finish('only-1', { only: [path.join(rec.path, 'src/app.ts'), path.join(rec.path, 'docs/new file [1].md')] });
  assert.equal(info?.filesChanged, 2);
  assert.deepEqual(onBranch(sb, rec.branch, rec.baseCommit), ['docs/new file [1].md', 'src/app.ts']);
  assert.equal(sb.git(['status', '--porcelain'], rec.path).trim(), '?? stray.txt', 'staged nothing it was not told of');
});

test('finish falls back to staging everything when git refuses a written file, one lies outside, or the named files changed nothing', async (t) => {
  const sb = sandbox(t);
  const m = sb.manager();
  const cases: Array<{ id: string; only: (wt: string) => string[]; write: Record<string, string> }> = [
    // An ignored file git will not add by name.
    { id: 'ignored', only: (wt) => [path.join(wt, 'build/out.js'), path.join(wt, 'a.txt')], write: { 'build/out.js': 'x\n', 'a.txt': 'a\n', 'other.txt': 'o\n' } },
    // A file that is not there (a write that failed).
    { id: 'missing', only: (wt) => [path.join(wt, 'never-written.txt')], write: { 'other.txt': 'o\n' } },
    { id: 'outside', only: () => [path.join(sb.root, 'elsewhere.txt')], write: { 'other.txt': 'o\n' } },
    // The named file is as it was: "unchanged" would hand the folder back to be cleaned, so it is never judged from them alone.
    { id: 'same', only: (wt) => [path.join(wt, 'README.md')], write: { 'README.md': '# demo\n', 'other.txt': 'o\n' } },
  ];
  // A symbolic link the agent edited through: the tools wrote its target, which the named path does not stage.
  symlinkSync('README.md', path.join(sb.repo, 'link.md'));
  sb.git(['add', 'link.md']);
  sb.git(['commit', '-q', '-m', 'a link']);
  cases.push({ id: 'symlink', only: (wt) => [path.join(wt, 'link.md'), path.join(wt, 'other.txt')], write: { 'README.md': '# edited through the link\n', 'other.txt': 'o\n' } });
  for (const c of cases) {
    const rec = await m.create({ cwd: sb.repo, agentName: 'w', agentId: `fallback-${c.id}` });
    for (const [rel, content] of Object.entries(c.write)) sb.write(rel, content, rec.path);
    const info = await m.finish(rec.agentId, { only: c.only(rec.path) });
    assert.ok(info, `${c.id}: the work is kept`);
    assert.ok(onBranch(sb, rec.branch, rec.baseCommit).includes('other.txt'), `${c.id}: everything was staged`);
    assert.equal(sb.git(['status', '--porcelain'], rec.path).trim(), '', `${c.id}: nothing left out`);
    if (c.id === 'symlink') assert.ok(onBranch(sb, rec.branch, rec.baseCommit).includes('README.md'), 'the link\'s target is on the branch');
  }
});

/** Records what the engine passes to finish(). */
function spyOnFinish(manager: WorktreeManager): Array<readonly string[] | undefined> {
  const seen: Array<readonly string[] | undefined> = [];
  const original = manager.finish.bind(manager);
  manager.finish = (agentId, opts) => {
    seen.push(opts?.only);
    return original(agentId, opts);
  };
  return seen;
}

function isolatedChild(calls: Array<{ name: string; input: Record<string, unknown> }>) {
  return (req: ScriptedRequest): Reply => {
    if (isAgent(req.system, 'child')) return req.turn === 0 ? { toolUses: calls } : { text: 'done' };
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'child', description: 'work', prompt: 'work', isolation: 'worktree' } }] };
    return { text: [...req.toolResults.values()][0]!.content };
  };
}

test('an agent that only wrote files with Write, Edit or MultiEdit has just those staged; once it ran a shell command, everything is', async (t) => {
  const sb = sandbox(t);
  const manager = sb.manager();
  const seen = spyOnFinish(manager);
  const tools = ['Read', 'Write', 'Edit', 'Bash'];

  const writes = await harness({
    agents: [agent('parent'), agent('child', { tools })],
    script: isolatedChild([
      { name: 'Read', input: { file_path: 'README.md' } },
      { name: 'Write', input: { file_path: 'notes/new.md', content: 'new\n' } },
    ]),
    engine: { worktrees: manager },
    settings: { permissionMode: 'bypassPermissions' },
  });
  t.after(() => writes.close());
  await writes.engine.run({ agent: 'parent', prompt: 'go', cwd: path.join(sb.repo, 'src') });
  const [only] = seen;
  assert.equal(only?.length, 1);
  assert.match(only![0]!, /[/\\]src[/\\]notes[/\\]new\.md$/, 'the path the tool wrote, resolved in the agent\'s folder');
  const first = (await manager.list()).find((r) => r.state === 'finished')!;
  assert.deepEqual(onBranch(sb, first.branch, first.baseCommit), ['src/notes/new.md']);

  const shell = await harness({
    agents: [agent('parent'), agent('child', { tools })],
    script: isolatedChild([
      { name: 'Write', input: { file_path: 'written.txt', content: 'w\n' } },
      { name: 'Bash', input: { command: 'echo made by the shell > shell.txt' } },
    ]),
    engine: { worktrees: manager },
    settings: { permissionMode: 'bypassPermissions' },
  });
  t.after(() => shell.close());
  await shell.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  assert.equal(seen[1], undefined, 'after Bash the finish stages everything');
  const second = (await manager.list()).filter((r) => r.state === 'finished').find((r) => r.agentId !== first.agentId)!;
  assert.deepEqual(onBranch(sb, second.branch, second.baseCommit), ['shell.txt', 'written.txt']);
});

test('a SubagentStart or SubagentStop hook command that ran makes the finish stage everything; hooks with nothing to run do not', async (t) => {
  const sb = sandbox(t);
  const manager = sb.manager();
  const seen = spyOnFinish(manager);
  for (const ran of [false, true]) {
    const run = await harness({
      agents: [agent('parent'), agent('child', { tools: ['Write'] })],
      script: isolatedChild([{ name: 'Write', input: { file_path: `by-tool-${ran}.txt`, content: 'w\n' } }]),
      engine: {
        worktrees: manager,
        // As configured hooks would: a command run in the child's folder writes a file there.
        hooks: {
          subagentStart: async (info) => {
            if (ran && info.worktree) writeFileSync(path.join(info.cwd, 'by-hook.txt'), 'h\n');
            return { ran };
          },
          subagentStop: async () => ({ ran }),
        },
      },
      settings: { permissionMode: 'bypassPermissions' },
    });
    t.after(() => run.close());
    await run.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  }
  assert.equal(seen[0]?.length, 1, 'no hook command ran: only the written file');
  assert.equal(seen[1], undefined, 'a hook command ran: everything');
  const byHook = (await manager.list()).find((r) => r.state === 'finished' && onBranch(sb, r.branch, r.baseCommit).includes('by-hook.txt'));
  assert.ok(byHook, 'what the hook wrote is on the branch');
});
