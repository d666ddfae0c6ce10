import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { firstUserTexts, group, hookWorld, pathOnlyArchive } from './hookFixture';

const startContext = (text: string) => `printf '%s' '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: text } })}'`;

test('SubagentStart: additionalContext from user and project hooks reaches the first request, ahead of the task', async () => {
  const w = await hookWorld();
  await w.userSettings({ SubagentStart: [group([await w.script('user-start.sh', startContext('User rule: use pnpm.'))])] });
  await w.projectSettings({
    SubagentStart: [group([await w.script('plain.sh', 'echo "plain stdout is not context"'), await w.script('project-start.sh', startContext('Project rule: tests live in test/.'))])],
  });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    const result = await h.engine.run({ agent: 'worker', prompt: 'Fix the bug.', cwd: w.project });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['User rule: use pnpm.\n\nProject rule: tests live in test/.', 'Fix the bug.']);
    assert.deepEqual(w.warnings(), []);
    const infos = w.logs.filter((l) => l.level === 'info').map((l) => l.message);
    assert.equal(infos.length, 3, infos.join('\n'));
    for (const line of infos) assert.match(line, /^SubagentStart hook ".+" \(from .+settings\.json\) for agent "worker": exit 0 in \d+ ms$/);
  } finally {
    await h.close();
    await w.close();
  }
});

test('SubagentStop: exit 2 sends the agent back once with the hook\'s stderr; stop_hook_active is true on the second call', async () => {
  const w = await hookWorld();
  const calls = path.join(w.out, 'stop-calls.jsonl');
  const gate = await w.script(
    'stop-gate.sh',
    `input=$(cat)
printf '%s\\n' "$input" >> '${calls}'
case "$input" in
  *'"stop_hook_active":false'*) echo 'Also update the changelog.' >&2; exit 2 ;;
esac
exit 0`,
  );
  await w.projectSettings({ SubagentStop: [group([gate])] });
  const h = await harness({
    agents: [agent('worker')],
    script: (req) => (req.turn === 0 ? { text: 'Fixed the bug.' } : { text: `Done, after: ${req.lastUserText}` }),
    engine: { trust: w.trust, hooks: w.hooks, log: w.log },
  });
  try {
    const result = await h.engine.run({ agent: 'worker', prompt: 'Fix the bug.', cwd: w.project });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'Done, after: Also update the changelog.');
    assert.equal(h.server.requests.length, 2, 'exactly one more turn');
    assert.equal(h.server.requests[1]!.lastUserText, 'Also update the changelog.');
    const seen = (await w.read('stop-calls.jsonl')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(seen.map((s) => [s.stop_hook_active, s.last_assistant_message]), [
      [false, 'Fixed the bug.'],
      [true, 'Done, after: Also update the changelog.'],
    ]);
    assert.deepEqual(w.warnings(), []);
  } finally {
    await h.close();
    await w.close();
  }
});

test('SubagentStop: several blocking hooks (exit 2 and {"decision":"block"}) join their instructions in settings order', async () => {
  const w = await hookWorld();
  const onlyFirst = (body: string) => `case "$(cat)" in *'"stop_hook_active":false'*) ${body} ;; esac`;
  await w.userSettings({ SubagentStop: [group([await w.script('exit2.sh', onlyFirst(`sleep 0.2; echo 'Run the linter.' >&2; exit 2`))])] });
  await w.projectSettings({ SubagentStop: [group([await w.script('json.sh', onlyFirst(`printf '%s' '{"decision":"block","reason":"Add tests."}'`))])] });
  const h = await harness({ agents: [agent('worker')], script: (req) => ({ text: req.turn === 0 ? 'first' : 'second' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    const result = await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'second');
    assert.equal(h.server.requests[1]!.lastUserText, 'Run the linter.\n\nAdd tests.', 'the slower user hook still comes first');
  } finally {
    await h.close();
    await w.close();
  }
});

test('a hook gets Claude Code\'s JSON on stdin, runs in the project dir with CLAUDE_PROJECT_DIR, and never sees ANTHROPIC_* variables', async () => {
  const saved = { key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL };
  // The default environment is process.env: put a key there to prove it is stripped.
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test-must-not-leak';
  process.env.ANTHROPIC_BASE_URL = 'http://127.0.0.1:9';
  process.env.SUBAGENTS_HOOK_TEST_MARKER = 'inherited';
  const w = await hookWorld();
  const record = (event: string) => w.script(`record-${event}.sh`, `cat > "${w.out}/${event}-$$.json"; env > "${w.out}/${event}-$$.env"; pwd > "${w.out}/${event}-$$.pwd"`);
  await w.projectSettings({ SubagentStart: [group([await record('start')])], SubagentStop: [group([await record('stop')])] });
  const sub = path.join(w.project, 'packages', 'app');
  await mkdir(sub, { recursive: true });
  const h = await harness({
    agents: [agent('parent'), agent('child')],
    script: (req) => {
      if (isAgent(req.system, 'child')) return { text: 'child says hi' };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'child', description: 'say hi', prompt: 'hi' } }] };
      return { text: 'parent done' };
    },
    // The settings predate the session: under acceptEdits, hooks added later would need approval.
    engine: { trust: w.trust, log: w.log, hooks: await w.session(), archive: pathOnlyArchive(w.root) },
  });
  try {
    const result = await h.engine.run({ agent: 'parent', prompt: 'go', cwd: sub, permissionMode: 'acceptEdits' });
    assert.equal(result.status, 'completed', result.error ?? '');
    const childId = h.events.find((e) => e.type === 'agent_started' && e.agentName === 'child')!.agentId;
    const files = await readdir(w.out);
    const inputs = await Promise.all(files.filter((f) => f.endsWith('.json')).map(async (f) => JSON.parse(await w.read(f)) as Record<string, unknown>));
    const find = (event: string, agentId: string) => inputs.find((i) => i.hook_event_name === event && i.agent_id === agentId);
    const transcript = (id: string) => path.join(w.root, 'transcripts', `${id}.jsonl`);

    assert.equal(inputs.length, 4, 'start and stop, for parent and child');
    assert.deepEqual(find('SubagentStart', result.agentId), {
      session_id: result.runId,
      transcript_path: transcript(result.agentId),
      cwd: sub,
      permission_mode: 'acceptEdits',
      hook_event_name: 'SubagentStart',
      agent_id: result.agentId,
      agent_type: 'parent',
    });
    assert.deepEqual(find('SubagentStop', result.agentId), {
      session_id: result.runId,
      transcript_path: transcript(result.agentId),
      cwd: sub,
      permission_mode: 'acceptEdits',
      hook_event_name: 'SubagentStop',
      agent_id: result.agentId,
      agent_type: 'parent',
      stop_hook_active: false,
      agent_transcript_path: transcript(result.agentId),
      last_assistant_message: 'parent done',
    });
    assert.deepEqual(find('SubagentStart', childId), {
      session_id: result.runId,
      transcript_path: transcript(childId),
      cwd: sub,
      permission_mode: 'acceptEdits',
      hook_event_name: 'SubagentStart',
      agent_id: childId,
      agent_type: 'child',
    });
    assert.equal(find('SubagentStop', childId)?.last_assistant_message, 'child says hi');

    for (const file of files.filter((f) => f.endsWith('.env'))) {
      const env = await w.read(file);
      assert.doesNotMatch(env, /^ANTHROPIC_/m, `${file} must not contain ANTHROPIC_* variables`);
      assert.doesNotMatch(env, /sk-ant-test-must-not-leak/);
      assert.match(env, /^SUBAGENTS_HOOK_TEST_MARKER=inherited$/m, 'the rest of the environment is inherited');
      assert.match(env, new RegExp(`^CLAUDE_PROJECT_DIR=${w.project}$`, 'm'));
    }
    for (const file of files.filter((f) => f.endsWith('.pwd'))) assert.equal((await w.read(file)).trim(), w.project, 'hooks run in the project dir');
  } finally {
    process.env.ANTHROPIC_API_KEY = saved.key;
    process.env.ANTHROPIC_BASE_URL = saved.url;
    if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
    if (saved.url === undefined) delete process.env.ANTHROPIC_BASE_URL;
    delete process.env.SUBAGENTS_HOOK_TEST_MARKER;
    await h.close();
    await w.close();
  }
});

test('the hooks of one event run in parallel', async () => {
  const w = await hookWorld();
  // Each hook waits for the other to have started: run one after the other, the first would time out.
  const rendezvous = (me: string, other: string, context: string) =>
    w.script(`${me}.sh`, `touch "${w.out}/${me}"; while [ ! -e "${w.out}/${other}" ]; do sleep 0.02; done; ${startContext(context)}`);
  await w.userSettings({ SubagentStart: [group([{ command: await rendezvous('a', 'b', 'from a'), timeout: 5 }, { command: await rendezvous('b', 'a', 'from b'), timeout: 5 }])] });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    const result = await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project });
    assert.equal(result.status, 'completed');
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['from a\n\nfrom b', 'go']);
    assert.deepEqual(w.warnings(), []);
  } finally {
    await h.close();
    await w.close();
  }
});

test('no hook runs in a plan-mode run tree, the root or the agents it starts; the log says so', async () => {
  const w = await hookWorld();
  await w.userSettings({
    SubagentStart: [group([`echo start >> '${w.out}/ran'`])],
    SubagentStop: [group([`echo stop >> '${w.out}/ran'`, `printf '%s' '{"decision":"block","reason":"keep going"}'`])],
  });
  const logs: string[] = [];
  const h = await harness({
    agents: [agent('planner'), agent('scout')],
    script: (req) => (isAgent(req.system, 'planner') && req.turn === 0 ? { toolUses: [{ name: 'Task', input: { subagent_type: 'scout', description: 'look', prompt: 'look around' } }] } : { text: 'the plan' }),
    engine: { trust: w.trust, hooks: w.hooks, log: (level, message) => logs.push(`${level}: ${message}`) },
  });
  try {
    const result = await h.engine.run({ agent: 'planner', prompt: 'plan it', cwd: w.project, permissionMode: 'plan' });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.output, 'the plan', 'no SubagentStop hook sent it back to work');
    await assert.rejects(w.read('ran'), { code: 'ENOENT' }, 'no hook command ran');
    assert.equal(logs.filter((l) => /^info: The SubagentStart and SubagentStop hooks of agent "(planner|scout)" \(.+\) do not run: it is in plan mode/.test(l)).length, 2, logs.join('\n'));
  } finally {
    await h.close();
    await w.close();
  }
});
