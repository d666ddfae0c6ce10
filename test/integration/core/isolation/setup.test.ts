import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { WorktreeManager } from '../../../../src/core/isolation';
import { PermissionGate, type ApprovalRequest } from '../../../../src/core/tools/permissions';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';
import { makeSandbox, type Sandbox } from './helpers';

const SETUP = 'mkdir -p deps && echo installed > deps/marker && echo generated > generated.txt && echo setup done';

/** A parent that starts one isolated worker (with `extra` spawn input); the worker reads deps/marker, writes feature.txt, and reports. */
function oneWorker(extra: Record<string, unknown> = {}) {
  return (req: ScriptedRequest): Reply => {
    if (isAgent(req.system, 'worker')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Read', input: { file_path: 'deps/marker' } }] };
      if (req.turn === 1) return { toolUses: [{ name: 'Write', input: { file_path: 'feature.txt', content: 'feature\n' } }] };
      return { text: `marker: ${JSON.stringify(req.messages).includes('installed') ? 'seen' : 'missing'}` };
    }
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'build it', prompt: 'build it', isolation: 'worktree', ...extra } }] };
    return { text: [...req.toolResults.values()][0]!.content };
  };
}

function pooledManager(sb: Sandbox): WorktreeManager {
  return new WorktreeManager({ stateDir: sb.stateDir, worktreesRoot: sb.worktreesRoot, poolSize: () => 2 });
}

function setupRows(events: RunEvent[], agentId: string) {
  return events.filter((e): e is Extract<RunEvent, { type: 'tool_started' | 'tool_finished' }> => (e.type === 'tool_started' || e.type === 'tool_finished') && e.name === 'Setup' && e.agentId === agentId);
}

test('the setup command runs in each worktree an agent gets, as a Setup step asked about like a shell command; what it makes is not the agent\'s work', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', '.gitignore': 'deps/\n' });
  t.after(() => sb.cleanup());
  const asked: ApprovalRequest[] = [];
  const worktrees = pooledManager(sb);
  t.after(() => worktrees.dispose());
  const h = await harness({
    agents: [agent('parent'), agent('worker')],
    settings: { permissionMode: 'default', 'worktrees.setupCommand': SETUP },
    script: oneWorker(),
    engine: {
      worktrees,
      gate: new PermissionGate(async (request) => {
        asked.push(request);
        return { allow: true };
      }),
    },
  });
  t.after(() => h.close());

  for (const round of [1, 2]) {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
    const child = JSON.parse(result.output!) as { status: string; agentId: string; output: string; worktree: { branch: string; baseCommit: string; filesChanged: number } };
    assert.equal(child.status, 'completed', `round ${round}`);
    assert.equal(child.output, 'marker: seen', 'the agent started after the setup, in its output');
    const rows = setupRows(h.events, child.agentId);
    assert.deepEqual(rows.map((r) => r.type), ['tool_started', 'tool_finished'], 'one Setup step per worktree');
    assert.equal(rows[0]!.type === 'tool_started' && rows[0]!.inputSummary, SETUP);
    assert.ok(rows[1]!.type === 'tool_finished' && rows[1]!.ok && /setup done/.test(rows[1]!.resultSummary));
    const approval = asked.find((a) => a.agentId === child.agentId && a.toolName === 'Setup');
    assert.equal(approval?.kind, 'bash');
    assert.equal(approval?.summary, SETUP);
    // The setup's generated.txt is in the base, not in the agent's changes.
    assert.equal(child.worktree.filesChanged, 1);
    assert.equal(sb.git(['diff', '--name-only', child.worktree.baseCommit, child.worktree.branch]).trim(), 'feature.txt');
    const started = h.events.findIndex((e) => e.type === 'worktree_created' && e.agentId === child.agentId);
    assert.ok(started > h.events.indexOf(rows[1]!), 'worktree_created comes after the setup, with the base it made');
    const applied = await worktrees.apply(child.agentId);
    assert.deepEqual(applied.updated, ['feature.txt'], 'apply brings only the agent\'s work');
    await worktrees.discard(child.agentId);
    sb.git(['checkout', '--', '.']);
    sb.git(['clean', '-fdq']);
  }
});

test('a setup command the user refuses fails the agent before its first turn, and leaves nothing behind', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n' });
  t.after(() => sb.cleanup());
  const worktrees = pooledManager(sb);
  t.after(() => worktrees.dispose());
  const h = await harness({
    agents: [agent('parent'), agent('worker')],
    settings: { permissionMode: 'default', 'worktrees.setupCommand': 'echo made > made.txt' },
    script: oneWorker(),
    engine: { worktrees, gate: new PermissionGate(async () => ({ allow: false, reason: 'not today' })) },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  assert.match(result.output ?? '', /failed: The worktree setup command was not run: .*not today/);
  const worker = h.events.find((e) => e.type === 'agent_started' && e.agentName === 'worker')!;
  assert.equal(h.server.requests.filter((r) => isAgent(r.system, 'worker')).length, 0, 'the worker never made a request');
  assert.equal(setupRows(h.events, worker.agentId).at(-1)?.type === 'tool_finished' && setupRows(h.events, worker.agentId).at(-1)!.type, 'tool_finished');
  assert.equal(sb.git(['branch', '--list', 'subagents/*']), '', 'nothing kept');
});

test('baseRef: from the spawn call, the agent file, or the setting; a bad one is a clear tool error', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', 'app.txt': 'v1\n' });
  t.after(() => sb.cleanup());
  sb.git(['checkout', '-q', '-b', 'release']);
  sb.write('app.txt', 'release\n');
  sb.git(['commit', '-qam', 'release']);
  sb.git(['checkout', '-q', '-b', 'stable']);
  sb.write('app.txt', 'stable\n');
  sb.git(['commit', '-qam', 'stable']);
  sb.git(['checkout', '-q', 'main']);
  sb.write('app.txt', 'uncommitted on main\n');
  const worktrees = pooledManager(sb);
  t.after(() => worktrees.dispose());
  let spawnInput: Record<string, unknown> = {};
  const script = (req: ScriptedRequest): Reply => {
    if (isAgent(req.system, 'reader') || isAgent(req.system, 'pinned')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Read', input: { file_path: 'app.txt' } }] };
      return { text: [...req.toolResults.values()][0]!.content.trim() };
    }
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { description: 'read', prompt: 'read app.txt', ...spawnInput } }] };
    const [r] = [...req.toolResults.values()];
    return { text: r!.isError ? `error: ${r!.content}` : (JSON.parse(r!.content) as { output: string }).output };
  };
  const h = await harness({
    agents: [agent('parent'), agent('reader', { tools: ['Read'] }), agent('pinned', { tools: ['Read'], isolation: 'worktree', baseRef: 'stable' })],
    settings: { 'worktrees.baseRef': 'HEAD' },
    script,
    engine: { worktrees },
  });
  t.after(() => h.close());
  const ask = async (input: Record<string, unknown>) => {
    spawnInput = input;
    return (await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo })).output;
  };
  assert.equal(await ask({ subagent_type: 'reader', isolation: 'worktree' }), 'uncommitted on main', 'HEAD: what the user sees');
  assert.equal(await ask({ subagent_type: 'reader', isolation: 'worktree', base_ref: 'release' }), 'release');
  assert.equal(await ask({ subagent_type: 'pinned' }), 'stable', 'the agent file\'s baseRef');
  assert.equal(await ask({ subagent_type: 'pinned', base_ref: 'release' }), 'release', 'the spawn call wins over the file');
  assert.match((await ask({ subagent_type: 'reader', isolation: 'worktree', base_ref: 'no-such-branch' }))!, /^error: Cannot start reader from "no-such-branch": there is no branch, tag or commit of that name/);
  assert.match((await ask({ subagent_type: 'reader', isolation: 'worktree', base_ref: '--upload-pack=evil' }))!, /^error: Cannot start reader from "--upload-pack=evil": it starts with "-"/);
  assert.match((await ask({ subagent_type: 'reader', base_ref: 'release' }))!, /^error: base_ref applies to an isolated agent only/);
  await assert.rejects(h.engine.start({ agent: 'reader', prompt: 'x', cwd: sb.repo, baseRef: 'release' }), /A base ref applies to an isolated run only/);

  h.catalog.set([agent('parent'), agent('reader', { tools: ['Read'] })]);
  const settled = await harness({ agents: [agent('parent'), agent('reader', { tools: ['Read'] })], settings: { 'worktrees.baseRef': 'stable' }, script, engine: { worktrees } });
  t.after(() => settled.close());
  spawnInput = { subagent_type: 'reader', isolation: 'worktree' };
  assert.equal((await settled.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo })).output, 'stable', 'the setting');
  assert.equal(sb.read('app.txt'), 'uncommitted on main\n');
});

test('an agent file\'s baseRef is read from its frontmatter', async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n' });
  t.after(() => sb.cleanup());
  const dir = path.join(sb.repo, '.claude', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'pinned.md'), '---\nname: pinned\ndescription: Works from the release branch\nisolation: worktree\nbaseRef: release\n---\nWork.\n');
  const catalog = await AgentCatalog.create({ cwd: sb.repo, home: sb.root, pluginDirs: [], loadClaudePlugins: false, watch: false });
  t.after(() => catalog.dispose());
  assert.equal(catalog.find('pinned')?.baseRef, 'release');
});
