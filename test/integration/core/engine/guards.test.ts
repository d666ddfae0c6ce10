import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';

/** A parent whose first turn makes the given spawn call and whose second turn echoes the tool result. */
function spawnOnce(input: Record<string, unknown>, child: (req: ScriptedRequest) => Reply = () => ({ text: 'child done' })) {
  return (req: ScriptedRequest) => {
    if (!isAgent(req.system, 'parent')) return child(req);
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { description: 'do it', prompt: 'do the thing', ...input } }] };
    const [result] = [...req.toolResults.values()];
    return { text: `${result!.isError ? 'ERROR' : 'OK'}: ${result!.content}` };
  };
}

async function refusal(agents: ReturnType<typeof agent>[], input: Record<string, unknown>, settings = {}) {
  const h = await harness({ agents, script: spawnOnce(input), settings });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    const started = h.events.filter((e) => e.type === 'agent_started').length;
    return { output: result.output ?? '', started };
  } finally {
    await h.close();
  }
}

test('unknown agent: a tool error listing the available agents, and no run starts', async () => {
  const r = await refusal([agent('parent'), agent('helper')], { subagent_type: 'nope' });
  assert.equal(r.output, 'ERROR: Unknown agent "nope". Available: parent, helper');
  assert.equal(r.started, 1);
});

test('disabled agent: refused with the enabled ones listed', async () => {
  const r = await refusal([agent('parent'), agent('helper'), agent('other')], { subagent_type: 'helper' }, { disabledAgents: ['helper'] });
  assert.equal(r.output, 'ERROR: Agent "helper" is disabled. Enabled: parent, other');
  assert.equal(r.started, 1);
});

test("spawns policy: a parent may spawn only what its spawns list allows; an empty list denies all", async () => {
  const listed = await refusal([agent('parent', { spawns: ['helper'] }), agent('helper'), agent('other')], { subagent_type: 'other' });
  assert.equal(listed.output, 'ERROR: Cannot spawn "other". Allowed: helper');
  const none = await refusal([agent('parent', { tools: ['Task'], spawns: [] }), agent('helper')], { subagent_type: 'helper' });
  assert.equal(none.output, 'ERROR: Cannot spawn "helper". Allowed: none');
  const allowed = await refusal([agent('parent', { spawns: ['helper'] }), agent('helper')], { subagent_type: 'helper' });
  assert.match(allowed.output, /^OK: \{"status":"completed"/);
  assert.equal(allowed.started, 2);
});

test('self-recursion is refused unless the definition lists itself in spawns', async () => {
  const refused = await refusal([agent('parent')], { subagent_type: 'parent' });
  assert.match(refused.output, /^ERROR: Agent "parent" cannot spawn itself/);
  assert.equal(refused.started, 1);
});

test('isolation with cwd is refused before anything starts', async () => {
  const r = await refusal([agent('parent'), agent('helper')], { subagent_type: 'helper', isolation: 'worktree', cwd: '/tmp' });
  assert.match(r.output, /^ERROR: isolation and cwd cannot be used together/);
  assert.equal(r.started, 1);
});

test('the spawn tool is removed at the maximum depth, and the deepest agent gets no spawns', async () => {
  const h = await harness({
    agents: [agent('parent'), agent('mid'), agent('leaf')],
    settings: { maxDepth: 2 },
    script: (req) => {
      const name = isAgent(req.system, 'parent') ? 'mid' : isAgent(req.system, 'mid') ? 'leaf' : null;
      if (name && req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: name, description: 'go deeper', prompt: 'go' } }] };
      return { text: 'done' };
    },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed');
    const toolsOf = (name: string) => h.server.requests.find((r) => isAgent(r.system, name))!.toolNames;
    assert.ok(toolsOf('parent').includes('Task'));
    assert.ok(toolsOf('mid').includes('Task'));
    assert.ok(!toolsOf('leaf').includes('Task'), 'depth 2 = maxDepth: no spawn tool');
    assert.ok(!toolsOf('leaf').includes('TaskOutput'));
    assert.ok(toolsOf('leaf').includes('Bash'));
  } finally {
    await h.close();
  }
});

test('plan mode: read-only tools only; a planning root may delegate, its children inherit plan mode and cannot spawn', async () => {
  const h = await harness({
    agents: [agent('parent', { permissionMode: 'plan' }), agent('helper')],
    script: spawnOnce({ subagent_type: 'helper' }),
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'plan it', cwd: h.dir });
    assert.equal(result.status, 'completed');
    const parentTools = h.server.requests.find((r) => isAgent(r.system, 'parent'))!.toolNames;
    assert.deepEqual(parentTools, ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Read', 'Glob', 'Grep', 'LS', 'TodoWrite']);
    const helper = h.server.requests.find((r) => isAgent(r.system, 'helper'))!;
    assert.deepEqual(helper.toolNames, ['Read', 'Glob', 'Grep', 'LS', 'TodoWrite']);
    assert.match(helper.system, /plan mode/);
  } finally {
    await h.close();
  }
});

test('plan mode holds down the tree: a child whose file asks for bypassPermissions still cannot write, and a Write it calls is refused', async () => {
  const h = await harness({
    agents: [agent('parent', { permissionMode: 'plan' }), agent('writer', { permissionMode: 'bypassPermissions', tools: ['Read', 'Write', 'Edit', 'Bash', 'Task'] })],
    script: spawnOnce({ subagent_type: 'writer' }, (req) =>
      req.turn === 0
        ? { toolUses: [{ name: 'Write', input: { file_path: 'plan.txt', content: 'written in plan mode' } }, { name: 'Bash', input: { command: 'touch bashed.txt' } }] }
        : { text: [...req.toolResults.values()].map((r) => `${r.isError}:${r.content}`).join('\n') },
    ),
  });
  try {
    // A root put in plan mode by the caller (the CLI's --permission-mode plan), not by its file.
    const result = await h.engine.run({ agent: 'parent', prompt: 'plan it', cwd: h.dir, permissionMode: 'plan' });
    assert.equal(result.status, 'completed');
    const writer = h.server.requests.find((r) => isAgent(r.system, 'writer'))!;
    assert.deepEqual(writer.toolNames, ['Read']);
    assert.match(writer.system, /plan mode/);
    const results = [...h.server.requests.find((r) => isAgent(r.system, 'writer') && r.turn === 1)!.toolResults.values()];
    assert.deepEqual(results.map((r) => r.isError), [true, true]);
    assert.match(results[0]!.content, /Tool "Write" is not available to this agent/);
    assert.match(results[1]!.content, /Tool "Bash" is not available to this agent/);
    assert.equal(existsSync(path.join(h.dir, 'plan.txt')), false);
    assert.equal(existsSync(path.join(h.dir, 'bashed.txt')), false);
  } finally {
    await h.close();
  }
});

test('allow and deny lists: tools ∩ allow-list − deny-list, names matched case-insensitively, Agent = Task', async () => {
  const h = await harness({
    agents: [agent('parent', { tools: ['read', 'GREP', 'Bash', 'Agent', 'mcp__x__y'], disallowedTools: ['bash'] })],
    script: () => ({ text: 'ok' }),
  });
  try {
    await h.engine.run({ agent: 'parent', prompt: 'hi', cwd: h.dir });
    assert.deepEqual(h.server.requests[0]!.toolNames, ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Read', 'Grep']);
  } finally {
    await h.close();
  }
});

test('a definition changed mid-session is honoured on the next spawn', async () => {
  const spawnTwice = (req: ScriptedRequest) => {
    if (!isAgent(req.system, 'parent')) return { text: `helper says: ${req.system.split(' [')[0]}` };
    if (req.turn < 2) {
      // Between the two spawns the user edits the helper's file.
      if (req.turn === 1) h.catalog.set([agent('parent'), agent('helper', { systemPrompt: 'NEW PROMPT [agent:helper]' })]);
      return { toolUses: [{ name: 'Task', input: { subagent_type: 'helper', description: 'ask', prompt: 'who are you?' } }] };
    }
    return { text: 'done' };
  };
  const h = await harness({ agents: [agent('parent'), agent('helper', { systemPrompt: 'OLD PROMPT [agent:helper]' })], script: spawnTwice });
  try {
    await h.engine.run({ agent: 'parent', prompt: 'go', cwd: h.dir });
    const helperSystems = h.server.requests.filter((r) => isAgent(r.system, 'helper')).map((r) => r.system.split(' [')[0]);
    assert.deepEqual(helperSystems, ['OLD PROMPT', 'NEW PROMPT']);
  } finally {
    await h.close();
  }
});

test("a spawn's cwd must lie inside the parent's working directory, symlinks resolved; inside it the child works there", async () => {
  const { mkdir, mkdtemp, rm, symlink, writeFile } = await import('node:fs/promises');
  const os = await import('node:os');
  const path = await import('node:path');
  const outside = await mkdtemp(path.join(os.tmpdir(), 'subagents-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret');
  const h = await harness({
    agents: [agent('lead', { tools: ['Task'] }), agent('reader', { tools: ['Read', 'LS'] })],
    script: (req: ScriptedRequest) => {
      if (isAgent(req.system, 'reader')) {
        if (req.turn === 0) return { toolUses: [{ name: 'LS', input: {} }] };
        return { text: `listed: ${[...req.toolResults.values()][0]!.content.replace(/\n/g, ',')}` };
      }
      if (req.turn === 0) {
        return {
          toolUses: ['outside', 'link', 'inside'].map((which) => ({
            name: 'Task',
            input: { subagent_type: 'reader', description: which, prompt: 'list', cwd: which === 'outside' ? outside : path.join(h.dir, which === 'link' ? 'escape' : 'sub') },
          })),
        };
      }
      return { text: [...req.toolResults.values()].map((r) => `${r.isError ? 'ERR' : 'OK'} ${r.content.split('\n')[0]}`).join('\n') };
    },
  });
  try {
    await mkdir(path.join(h.dir, 'sub'));
    await writeFile(path.join(h.dir, 'sub', 'inner.txt'), 'inside');
    await symlink(outside, path.join(h.dir, 'escape'));
    const result = await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    const [outsideLine, linkLine, insideLine] = (result.output ?? '').split('\n');
    assert.match(outsideLine!, /^ERR cwd ".*subagents-outside-.*" is outside the working directory of "lead"/);
    assert.match(linkLine!, /^ERR cwd ".*escape" is outside the working directory of "lead" \(it leads to .*subagents-outside-/);
    assert.match(insideLine!, /^OK .*"output":"listed: inner\.txt"/);
    const started = h.events.filter((e) => e.type === 'agent_started' && e.agentName === 'reader');
    assert.equal(started.length, 1, 'no child started outside');
    assert.equal(h.server.requests.some((r) => JSON.stringify(r.messages).includes('secret.txt')), false);
  } finally {
    await h.close();
    await rm(outside, { recursive: true, force: true });
  }
});
