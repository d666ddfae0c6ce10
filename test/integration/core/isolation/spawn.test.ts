import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { runCliProcess, CLI } from '../../../support/cliProcess';
import { startScriptedServer, type Reply, type ScriptedRequest } from '../../../support/scriptedServer';
import { makeSandbox } from './helpers';

/** A parent that spawns `children` isolated writers in one turn, then reports their results. */
function isolatedWriters(children: number, write: (i: number) => Record<string, unknown> | null) {
  return (req: ScriptedRequest): Reply => {
    if (isAgent(req.system, 'writer')) {
      const i = Number(/job (\d+)/.exec(JSON.stringify(req.messages[0]!.content))![1]);
      const input = write(i);
      if (req.turn === 0 && input) return { toolUses: [{ name: 'Write', input }] };
      if (req.turn === 0) return { toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }] };
      return { text: `writer ${i} saw: ${[...req.toolResults.values()][0]!.content}` };
    }
    if (req.turn === 0) {
      return { toolUses: Array.from({ length: children }, (_, i) => ({ name: 'Task', input: { subagent_type: 'writer', description: `job ${i}`, prompt: `job ${i}`, isolation: 'worktree' } })) };
    }
    return { text: JSON.stringify([...req.toolResults.values()].map((r) => (r.isError ? { error: r.content } : JSON.parse(r.content)))) };
  };
}

test('an isolated agent writes a file: the user tree is untouched, the branch has exactly the change, apply brings it in, discard removes it', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'notes.txt': 'committed notes\n' });
  t.after(() => sb.cleanup());
  sb.write('notes.txt', 'uncommitted notes the user is still writing\n');
  const before = sb.userState();
  const h = await harness({
    agents: [agent('parent'), agent('writer')],
    script: isolatedWriters(1, () => ({ file_path: 'feature.txt', content: 'new feature\n' })),
    engine: { worktrees: sb.manager() },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  const [child] = JSON.parse(result.output!) as Array<{ status: string; agentId: string; worktree: { branch: string; path: string; filesChanged: number; insertions: number; deletions: number } }>;
  assert.equal(child!.status, 'completed');
  assert.equal(child!.worktree.filesChanged, 1);
  assert.equal(child!.worktree.insertions, 1);
  assert.match(child!.worktree.branch, /^subagents\/writer-/);
  assert.ok(!child!.worktree.path.startsWith(sb.repo), 'the worktree lives outside the user tree');

  const after = sb.userState();
  const theirRefs = (refs: string) => refs.split('\n').filter((l) => !l.startsWith('refs/heads/subagents/')).join('\n');
  assert.deepEqual({ ...after, refs: theirRefs(after.refs) }, before, 'status, index, stash and the user’s refs are untouched');
  assert.match(after.refs, new RegExp(`refs/heads/${child!.worktree.branch} `), 'only the agent’s branch was added');
  assert.equal(sb.exists('feature.txt'), false);
  assert.equal(sb.git(['diff', '--name-only', `${child!.worktree.branch}~1`, child!.worktree.branch]).trim(), 'feature.txt', 'the branch has exactly the change');

  const events = h.events.filter((e) => e.agentId === child!.agentId);
  assert.ok(events.some((e) => e.type === 'worktree_created' && e.branch === child!.worktree.branch));
  const started = events.find((e) => e.type === 'agent_started');
  assert.ok(started?.type === 'agent_started' && started.cwd.startsWith(child!.worktree.path), 'the agent worked in its worktree');
  const finished = events.find((e) => e.type === 'agent_finished');
  assert.deepEqual(finished?.type === 'agent_finished' && finished.worktree, child!.worktree);

  const manager = sb.manager();
  await manager.list();
  const outcome = await manager.apply(child!.agentId);
  assert.equal(outcome.applied, true);
  assert.equal(sb.read('feature.txt'), 'new feature\n');
  assert.equal(sb.read('notes.txt'), 'uncommitted notes the user is still writing\n');
  await manager.discard(child!.agentId);
  assert.equal(sb.git(['branch', '--list', child!.worktree.branch]).trim(), '');
  assert.equal(existsSync(child!.worktree.path), false);
});

test('an isolated agent that changes nothing leaves no worktree and no branch; it saw the user’s uncommitted file', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n' });
  t.after(() => sb.cleanup());
  sb.write('notes.txt', 'untracked note from the user\n');
  const h = await harness({ agents: [agent('parent'), agent('writer')], script: isolatedWriters(1, () => null), engine: { worktrees: sb.manager() } });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  const [child] = JSON.parse(result.output!) as Array<{ status: string; output: string; worktree?: unknown }>;
  assert.equal(child!.output, 'writer 0 saw: untracked note from the user\n');
  assert.equal(child!.worktree, undefined);
  assert.equal(sb.git(['branch', '--list', 'subagents/*']).trim(), '');
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1);
});

test('eight isolated agents spawned in parallel in one repo all succeed, each with its own branch', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'notes.txt': 'n\n' });
  t.after(() => sb.cleanup());
  const h = await harness({
    agents: [agent('parent'), agent('writer')],
    settings: { maxConcurrency: 8 },
    script: isolatedWriters(8, (i) => ({ file_path: `out-${i}.txt`, content: `from ${i}\n` })),
    engine: { worktrees: sb.manager() },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  const children = JSON.parse(result.output!) as Array<{ status: string; worktree: { branch: string; filesChanged: number } }>;
  assert.equal(children.length, 8);
  assert.deepEqual(children.map((c) => c.status), Array(8).fill('completed'));
  assert.equal(new Set(children.map((c) => c.worktree.branch)).size, 8);
  children.forEach((c, i) => assert.equal(sb.git(['show', `${c.worktree.branch}:out-${i}.txt`]), `from ${i}\n`));
});

test('isolation is refused clearly outside a git repository, and together with cwd', async (t) => {
  const sb = makeSandbox({});
  t.after(() => sb.cleanup());
  const plain = path.join(sb.root, 'plain');
  mkdirSync(plain);
  const h = await harness({
    agents: [agent('parent'), agent('writer')],
    script: (req) => (req.turn === 0 ? { toolUses: [{ name: 'Task', input: { subagent_type: 'writer', description: 'x', prompt: 'job 0', isolation: 'worktree' } }] } : { text: [...req.toolResults.values()][0]!.content }),
    engine: { worktrees: sb.manager() },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: plain });
  assert.match(result.output ?? '', /needs a git repository, but .*plain is not inside one/);
  await assert.rejects(h.engine.start({ agent: 'writer', prompt: 'x', cwd: plain, isolation: 'worktree' }), /needs a git repository/);
});

test('CLI: --isolation worktree; after a SIGKILL mid-run the changed worktree is found and kept; diff, apply and discard work', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'app.txt': 'v1\n' });
  t.after(() => sb.cleanup());
  mkdirSync(path.join(sb.repo, '.claude/agents'), { recursive: true });
  writeFileSync(path.join(sb.repo, '.claude/agents/editor.md'), '---\nname: editor\ndescription: Edits\ntools: Write, Read\n---\nEdit. [agent:editor]\n');
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'agents']);
  const server = await startScriptedServer((req) => (req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'app.txt', content: 'v2 from the agent\n' } }] } : { hang: true }));
  t.after(() => server.close());
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };

  const child = spawn(process.execPath, [CLI, 'run', 'editor', 'edit it', '--isolation', 'worktree', '--permission-mode', 'acceptEdits', '--json', '--cwd', sb.repo], { env: { PATH: process.env.PATH, SUBAGENTS_NO_BACKGROUND: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((r) => child.once('exit', r));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  while (!/"tool_finished"/.test(out)) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGKILL');
  await exited;
  assert.equal(sb.read('app.txt'), 'v1\n', 'the user tree never changed');

  const listed = await runCliProcess(['worktrees', '--json'], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const { worktrees } = JSON.parse(listed.stdout) as { worktrees: Array<{ agentId: string; agentName: string; branch: string; path: string; info: { filesChanged: number } }> };
  assert.equal(worktrees.length, 1, 'the interrupted worktree is found');
  const [wt] = worktrees;
  assert.equal(wt!.agentName, 'editor');
  assert.equal(wt!.info.filesChanged, 1, 'changed, so it is kept (committed on its branch)');
  assert.ok(existsSync(wt!.path) || sb.git(['branch', '--list', wt!.branch]).trim() !== '');

  const diff = await runCliProcess(['worktrees', 'diff', wt!.agentId], { env });
  assert.match(diff.stdout, /-v1\n\+v2 from the agent/);
  sb.write('app.txt', 'v1 edited by the user\n');
  const apply = await runCliProcess(['worktrees', 'apply', wt!.agentId], { env });
  assert.equal(apply.code, 1, 'a conflict is reported');
  assert.match(apply.stdout, /conflict/i);
  assert.match(sb.read('app.txt'), /v1 edited by the user/, 'the user’s side is kept');
  assert.match(sb.read('app.txt'), /v2 from the agent/, 'and the agent’s side is there to choose');
  const discard = await runCliProcess(['worktrees', 'discard', wt!.agentId], { env });
  assert.equal(discard.code, 0, discard.stderr);
  assert.equal(sb.git(['branch', '--list', wt!.branch]).trim(), '');
});

test('the background cap holds for isolated spawns: 12 at once against maxBackgroundAgents 8 start 8 and refuse 4', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'notes.txt': 'notes\n' });
  t.after(() => sb.cleanup());
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const h = await harness({
    agents: [agent('parent', { tools: ['Task', 'TaskOutput', 'TaskStop'] }), agent('writer', { tools: ['Read'] })],
    settings: { maxBackgroundAgents: 8, maxConcurrency: 12 },
    script: async (req: ScriptedRequest): Promise<Reply> => {
      if (isAgent(req.system, 'writer')) {
        await gate;
        return { text: 'done' };
      }
      if (req.turn === 0) {
        return {
          toolUses: Array.from({ length: 12 }, (_, i) => ({ name: 'Task', input: { subagent_type: 'writer', description: `job ${i}`, prompt: `job ${i}`, isolation: 'worktree', run_in_background: true } })),
        };
      }
      if (req.turn === 1) {
        release();
        return { text: [...req.toolResults.values()].map((r) => (r.isError ? `ERR ${r.content}` : 'OK')).join('\n') };
      }
      return { text: 'collected' };
    },
    engine: { worktrees: sb.manager() },
  });
  t.after(() => h.close());
  const maxRunning = { value: 0 };
  h.engine.onEvent(() => (maxRunning.value = Math.max(maxRunning.value, h.engine.running.filter((r) => r.background).length)));
  const run = await h.engine.start({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  const result = await run.done;
  assert.equal(result.status, 'completed', result.error ?? '');
  const lines = h.server.requests.find((r) => isAgent(r.system, 'parent') && r.turn === 1)!;
  const outcomes = [...lines.toolResults.values()];
  assert.equal(outcomes.filter((r) => !r.isError).length, 8, 'eight started');
  const refused = outcomes.filter((r) => r.isError);
  assert.equal(refused.length, 4);
  for (const r of refused) assert.match(r.content, /Cannot start another background agent: 8 are running, the limit is 8 \(subagents\.maxBackgroundAgents\)/);
  assert.ok(maxRunning.value <= 8, `at most 8 background agents at once, saw ${maxRunning.value}`);
  assert.equal(h.events.filter((e) => e.type === 'agent_started' && e.agentName === 'writer').length, 8);
  assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 1, 'refused spawns left no worktree behind');
});
