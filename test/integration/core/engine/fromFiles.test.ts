import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';
import { writeFile } from '../agents/helpers';
import { makeSandbox, type Sandbox } from '../isolation/helpers';

// What agent files say, as the Messages API receives it: agents discovered
// from real files in a real git repository, run on the real engine and SDK
// against the scripted server, which records each request's body.

function marker(name: string): string {
  return `You are ${name}. [agent:${name}]`;
}

/** A git repository (on `branch`) with agent files under .claude/agents, and a catalog over it. */
async function project(t: TestContext, files: Record<string, string>, branch = 'main'): Promise<{ sb: Sandbox; catalog: AgentCatalog }> {
  const sb = makeSandbox();
  t.after(() => sb.cleanup());
  if (branch !== 'main') sb.git(['checkout', '-q', '-b', branch]);
  for (const [name, frontmatter] of Object.entries(files)) {
    writeFile(path.join(sb.repo, '.claude', 'agents', `${name}.md`), `---\nname: ${name}\n${frontmatter}---\n${marker(name)}\n`);
  }
  const catalog = await AgentCatalog.create({ cwd: sb.repo, home: path.join(sb.root, 'home'), pluginDirs: [], loadClaudePlugins: false, bundledDir: path.join(sb.root, 'none') });
  t.after(() => catalog.dispose());
  return { sb, catalog };
}

/** The parent spawns `targets` (one per turn), then reports each tool result it got. */
function spawnEach(targets: string[], child: (req: ScriptedRequest) => Reply = () => ({ text: 'child done' })) {
  return (req: ScriptedRequest): Reply => {
    if (!isAgent(req.system, 'parent')) return child(req);
    if (req.turn < targets.length) return { toolUses: [{ name: 'Task', input: { description: `run ${targets[req.turn]}`, prompt: 'go', subagent_type: targets[req.turn] } }] };
    return { text: 'done' };
  };
}

const requestOf = (requests: ScriptedRequest[], name: string) => {
  const found = requests.find((r) => isAgent(r.system, name));
  assert.ok(found, `no request of ${name}`);
  return found;
};

test('thinkingLevel / effort in the file reach the request as adaptive thinking with that effort; off and unset send none', async (t) => {
  const { catalog } = await project(t, {
    parent: 'description: Parent.\neffort: high\n',
    maxed: 'description: effort max runs as xhigh.\neffort: max\n',
    minimal: 'description: thinkingLevel minimal runs as low.\nthinkingLevel: minimal\n',
    medium: 'description: thinkingLevel medium.\nthinkingLevel: medium\n',
    off: 'description: thinking off.\nthinkingLevel: off\n',
    plain: 'description: nothing said.\n',
  });
  const h = await harness({ agents: [], script: spawnEach(['maxed', 'minimal', 'medium', 'off', 'plain']), engine: { catalog } });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
  assert.equal(result.status, 'completed');
  const sent = (name: string) => {
    const { body } = requestOf(h.server.requests, name);
    return { thinking: body.thinking, effort: (body.output_config as { effort?: string } | undefined)?.effort };
  };
  assert.deepEqual(sent('parent'), { thinking: { type: 'adaptive' }, effort: 'high' });
  assert.deepEqual(sent('maxed'), { thinking: { type: 'adaptive' }, effort: 'xhigh' });
  assert.deepEqual(sent('minimal'), { thinking: { type: 'adaptive' }, effort: 'low' });
  assert.deepEqual(sent('medium'), { thinking: { type: 'adaptive' }, effort: 'medium' });
  assert.deepEqual(sent('off'), { thinking: undefined, effort: undefined });
  assert.deepEqual(sent('plain'), { thinking: undefined, effort: undefined });
});

test('the system prompt ends with the environment block: working directory, platform, date and git branch', async (t) => {
  const { sb, catalog } = await project(t, { parent: 'description: Parent.\n' }, 'feature/env-check');
  const h = await harness({ agents: [], script: () => ({ text: 'ok' }), engine: { catalog } });
  t.after(() => h.close());
  const before = new Date().toISOString().slice(0, 10);
  await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  const after = new Date().toISOString().slice(0, 10);
  const { system } = requestOf(h.server.requests, 'parent');
  const block = /<environment>\n([\s\S]*?)\n<\/environment>/.exec(system);
  assert.ok(block, `no environment block in:\n${system}`);
  assert.ok(system.indexOf(marker('parent')) < block.index, 'the definition body comes first');
  const lines = block[1]!.split('\n');
  assert.equal(lines[0], `Working directory: ${sb.repo}`);
  assert.equal(lines[1], `Platform: ${os.platform()} ${os.release()}`);
  assert.ok([`Date: ${before}`, `Date: ${after}`].includes(lines[2]!), lines[2]);
  assert.equal(lines[3], 'Git branch: feature/env-check');

  // Outside a repository the block says so.
  await h.engine.run({ agent: 'parent', prompt: 'again', cwd: h.dir });
  assert.match(h.server.requests.at(-1)!.system, /Working directory: .*\nPlatform: .*\nDate: .*\nGit branch: \(not a git repository\)\n<\/environment>/);
});

test("the spawn tool's description lists the agents the parent may start, with their descriptions", async (t) => {
  const { catalog } = await project(t, {
    parent: 'description: Parent.\nspawns: [reviewer, tester]\n',
    reviewer: 'description: Reviews diffs for correctness and style.\ntools: Read, Grep\n',
    tester: 'description: Runs the test suite and explains failures.\n',
    hidden: 'description: Not in the parent spawns list.\n',
  });
  const h = await harness({ agents: [], script: () => ({ text: 'ok' }), engine: { catalog } });
  t.after(() => h.close());
  await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
  const task = requestOf(h.server.requests, 'parent').tools.find((tool) => tool.name === 'Task');
  assert.ok(task, 'the parent has the spawn tool');
  const listing = /Available agents:\n([\s\S]*?)\n\n/.exec(String(task.description));
  assert.ok(listing, String(task.description));
  assert.deepEqual(listing[1]!.split('\n'), ['- reviewer: Reviews diffs for correctness and style. (tools: Read, Grep)', '- tester: Runs the test suite and explains failures.']);
});

test('background: true in the file: the spawn returns at once and the parent hears of the result later', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { catalog } = await project(t, { parent: 'description: Parent.\n', watcher: 'description: Watches in the background.\nbackground: true\n' });
  const h = await harness({
    agents: [],
    engine: { catalog },
    script: async (req) => {
      if (isAgent(req.system, 'watcher')) {
        // Were the spawn to wait for the watcher, the gate would never open: give up on it, so that fails an assertion instead of hanging.
        await Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        return { text: 'watcher found 3 things' };
      }
      // The spawn call carries no run_in_background: only the file says so.
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'watcher', description: 'watch', prompt: 'watch' } }] };
      if (req.turn === 1) {
        release();
        return { text: `spawned: ${[...req.toolResults.values()][0]!.content}` };
      }
      return { text: `final: ${req.lastUserText}` };
    },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
  assert.equal(result.status, 'completed');
  // Turn 1 ran while the watcher still waited on the gate: the spawn had returned without its result.
  const turn1 = h.server.requests.find((r) => isAgent(r.system, 'parent') && r.turn === 1)!;
  const spawnResult = [...turn1.toolResults.values()][0]!.content;
  assert.doesNotMatch(spawnResult, /watcher found/);
  assert.equal(JSON.parse(spawnResult).status, 'async_launched');
  assert.match(result.output ?? '', /agent="watcher" status="completed" id="m\w+">\nwatcher found 3 things/);
  const started = h.events.find((e) => e.type === 'agent_started' && e.agentName === 'watcher');
  assert.ok(started?.type === 'agent_started' && started.background, 'the watcher ran as a background agent');
});

test('isolation: worktree in the file: the child works in a worktree of its own, not in the parent directory', async (t) => {
  const { sb, catalog } = await project(t, { parent: 'description: Parent.\n', isolated: 'description: Always isolated.\nisolation: worktree\n' });
  const h = await harness({
    agents: [],
    engine: { catalog, worktrees: sb.manager() },
    script: spawnEach(['isolated'], (req) => (req.turn === 0 ? { toolUses: [{ name: 'Write', input: { file_path: 'made-here.txt', content: 'x\n' } }] } : { text: 'wrote it' })),
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sb.repo });
  assert.equal(result.status, 'completed');
  const created = h.events.find((e) => e.type === 'worktree_created');
  assert.ok(created?.type === 'worktree_created', 'a worktree was created for the child');
  assert.match(created.branch, /^subagents\/isolated-/);
  const started = h.events.find((e) => e.type === 'agent_started' && e.agentName === 'isolated');
  assert.ok(started?.type === 'agent_started' && started.cwd.startsWith(created.path), 'the child worked in the worktree');
  assert.match(requestOf(h.server.requests, 'isolated').system, /\(an isolated git worktree/);
  assert.equal(sb.exists('made-here.txt'), false, 'the user tree is untouched');
  assert.equal(sb.exists('made-here.txt', created.path), true);
});
