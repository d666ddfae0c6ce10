import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ADMISSION_WORDS } from '../../../src/protocol/admission';
import { runEventSchema } from '../../../src/protocol/runEvents';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

let server: ScriptedServer;
let project: string;
let home: string;

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, HOME: home, ...extra };
}

before(async () => {
  server = await startScriptedServer();
  project = await mkdtemp(path.join(os.tmpdir(), 'subagents-cli-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-home-'));
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await writeFile(path.join(project, '.claude/agents/lead.md'), '---\nname: lead\ndescription: Leads the work\ntools: Task, Read\n---\nYou lead. [agent:lead]\n');
  await writeFile(path.join(project, '.claude/agents/finder.md'), '---\nname: finder\ndescription: Finds things\ntools: Grep, Read\nmodel: haiku\n---\nYou find. [agent:finder]\n');
  await writeFile(path.join(project, 'notes.txt'), 'the answer is 42\n');
});

after(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

function leadAndFinder() {
  server.setScript((req) => {
    if (req.system.includes('[agent:finder]')) {
      if (req.turn === 0) return { toolUses: [{ name: 'Grep', input: { pattern: 'answer' } }] };
      return { text: `finder: ${[...req.toolResults.values()][0]!.content.trim()}` };
    }
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'finder', description: 'look for it', prompt: 'find the answer' } }] };
    return { text: `The answer, per finder: ${JSON.parse([...req.toolResults.values()][0]!.content).output}` };
  });
}

test('run --json: one valid event per line with ids and nesting; the last line is the result; exit 0', async () => {
  leadAndFinder();
  const r = await runCliProcess(['run', 'lead', 'what', 'is', 'the', 'answer?', '--json', '--cwd', project], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const result = lines.at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.status, 'completed');
  assert.match(String(result.output), /The answer, per finder: finder: .*notes\.txt:1:the answer is 42/);
  assert.ok((result.usage as { outputTokens: number }).outputTokens > 0);
  const events = lines.slice(0, -1).map((l) => runEventSchema.parse(l));
  const started = events.filter((e) => e.type === 'agent_started');
  assert.deepEqual(started.map((e) => [e.agentName, e.depth]), [['lead', 0], ['finder', 1]]);
  assert.equal(started[1]!.type === 'agent_started' && started[1]!.parentId, started[0]!.agentId);
  assert.equal(result.agentId, started[0]!.agentId);
  assert.ok(events.some((e) => e.type === 'tool_finished' && e.name === 'Grep' && e.ok));
  assert.equal(events.at(-1)!.type, 'agent_finished');
});

test('run --json with an output schema: the result line holds the structured result as an object', async (t) => {
  // A project of its own: the other tests list this project's agents.
  const counting = await mkdtemp(path.join(os.tmpdir(), 'subagents-cli-schema-'));
  t.after(() => rm(counting, { recursive: true, force: true }));
  await mkdir(path.join(counting, '.claude/agents'), { recursive: true });
  await writeFile(
    path.join(counting, '.claude/agents/counter.md'),
    '---\nname: counter\ndescription: Counts\ntools: Read\noutput:\n  type: object\n  properties:\n    count: { type: integer }\n    files: { type: array, items: { type: string } }\n  required: [count, files]\n---\nYou count. [agent:counter]\n',
  );
  server.setScript((req) => (req.turn === 0 ? { toolUses: [{ name: 'StructuredOutput', input: { count: 1, files: ['notes.txt'] } }] } : { text: 'unreachable' }));
  const r = await runCliProcess(['run', 'counter', 'count the notes', '--json', '--cwd', counting], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { type: string; status: string; output: unknown };
  assert.deepEqual([result.type, result.status], ['result', 'completed']);
  assert.deepEqual(result.output, { count: 1, files: ['notes.txt'] });
  // Without --json, stdout is the same result as indented JSON.
  const plain = await runCliProcess(['run', 'counter', 'count the notes', '--cwd', counting], { env: env() });
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(JSON.parse(plain.stdout), { count: 1, files: ['notes.txt'] });
});

test('run without --json: the tree goes to stderr, the answer to stdout', async () => {
  leadAndFinder();
  const r = await runCliProcess(['run', 'lead', 'find it', '--cwd', project], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^The answer, per finder: /);
  assert.match(r.stderr, /▶ lead/);
  assert.match(r.stderr, /✓ Grep "answer"/);
  assert.match(r.stderr, /✓ lead · claude-sonnet-5-5/);
  assert.match(r.stderr, /└─ ✓ finder · look for it · claude-haiku-5-5/);
  assert.match(r.stderr, /completed · [\d.]+m?s · [\d.]+k? tok/);
});

test('errors are clear and exit non-zero: no API key, unknown agent, bad flags, failed run', async () => {
  const noKey = await runCliProcess(['run', 'lead', 'hi', '--cwd', project], { env: { HOME: home } });
  assert.equal(noKey.code, 1);
  assert.match(noKey.stderr, /No Anthropic API key\. Set ANTHROPIC_API_KEY/);

  const unknown = await runCliProcess(['run', 'nobody', 'hi', '--cwd', project], { env: env() });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Unknown agent "nobody"\. Available: finder, lead, explore, general-purpose, plan, reviewer$/m);

  const badFlag = await runCliProcess(['run', 'lead', 'hi', '--budget-tokens', 'lots'], { env: env() });
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /--budget-tokens needs a whole number/);
  const unknownFlag = await runCliProcess(['run', 'lead', 'hi', '--frobnicate'], { env: env() });
  assert.equal(unknownFlag.code, 2);
  const missing = await runCliProcess(['run'], { env: env() });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /missing <agent>/);

  server.setScript(() => ({ error: { status: 400, type: 'invalid_request_error', message: 'bad request' } }));
  const failed = await runCliProcess(['run', 'lead', 'hi', '--json', '--cwd', project], { env: env() });
  assert.equal(failed.code, 1);
  const last = JSON.parse(failed.stdout.trim().split('\n').at(-1)!) as { type: string; status: string; error: string };
  assert.equal(last.type, 'result');
  assert.equal(last.status, 'failed');
  assert.match(last.error, /rejected the request \(400\): bad request/);
});

test('--budget-tokens and --budget-usd stop the run at the budget: status budget_exceeded, the output so far kept, exit 1', async () => {
  // Without a budget this lead would search for ever.
  server.setScript((req) => ({ text: `searching, round ${req.turn}`, toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }] }));
  const byTokens = await runCliProcess(['run', 'lead', 'search', '--json', '--budget-tokens', '6000', '--cwd', project], { env: env() });
  assert.equal(byTokens.code, 1, byTokens.stderr);
  const tokensResult = JSON.parse(byTokens.stdout.trim().split('\n').at(-1)!) as { status: string; error: string; output: string; usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } };
  assert.equal(tokensResult.status, 'budget_exceeded');
  assert.match(tokensResult.error, /Token budget reached: \d+ of 6000 tokens used/);
  assert.match(tokensResult.output, /^searching, round \d+$/);
  const spent = tokensResult.usage.inputTokens + tokensResult.usage.outputTokens + tokensResult.usage.cacheReadTokens + tokensResult.usage.cacheWriteTokens;
  assert.ok(spent >= 6000 && spent < 12_000, `stopped at the first turn past the budget, not later (${spent} tokens)`);

  const byCost = await runCliProcess(['run', 'lead', 'search', '--budget-usd', '0.02', '--cwd', project], { env: env() });
  assert.equal(byCost.code, 1, byCost.stderr);
  assert.match(byCost.stderr, /Cost budget reached: \$0\.0\d+ of \$0\.02 spent/);
  assert.match(byCost.stdout, /^searching, round \d+/);
});

test('SIGINT mid-run cancels the tree, prints the cancelled result and exits non-zero', async () => {
  server.setScript(() => ({ hang: true }));
  let sent = false;
  const r = await runCliProcess(['run', 'lead', 'hang', '--json', '--cwd', project], {
    env: env(),
    onStdout: (chunk, child) => {
      if (!sent && chunk.includes('agent_started')) {
        sent = true;
        child.kill('SIGINT');
      }
    },
  });
  assert.equal(r.code, 1);
  const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { status: string; error: string };
  assert.equal(last.status, 'cancelled');
  assert.match(last.error, /Interrupted from the terminal/);
});

test('without a permission mode, a non-interactive run denies shell commands with a message saying how to allow them', async () => {
  server.setScript((req) =>
    req.turn === 0 ? { toolUses: [{ name: 'Bash', input: { command: 'echo hi' } }] } : { text: [...req.toolResults.values()][0]!.content },
  );
  await writeFile(path.join(project, '.claude/agents/shell.md'), '---\nname: shell\ndescription: Runs commands\ntools: Bash\n---\nYou run. [agent:shell]\n');
  const denied = await runCliProcess(['run', 'shell', 'say hi', '--cwd', project], { env: env() });
  assert.equal(denied.code, 0);
  assert.match(denied.stdout, /Bash needs approval .* --permission-mode/);
  const allowed = await runCliProcess(['run', 'shell', 'say hi', '--cwd', project, '--permission-mode', 'bypassPermissions'], { env: env() });
  assert.equal(allowed.stdout.trim(), 'hi');
});

test('every retry shows: a progress line with the reason and the wait, and a retry event with --json', async () => {
  server.setScript((req) =>
    req.attempt === 0 ? { error: { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after-ms': '1500' } } } : { text: 'after the wait' },
  );
  await writeFile(path.join(project, '.claude/agents/solo.md'), '---\nname: solo\ndescription: Alone\ntools: Read\n---\nYou work alone. [agent:solo]\n');
  const lines = await runCliProcess(['run', 'solo', 'hi', '--cwd', project], { env: env() });
  assert.equal(lines.code, 0, lines.stderr);
  assert.match(lines.stderr, /↻ rate limited \(429\); retrying in 1\.5 s \(attempt 2\)/);
  server.resetStats();
  const json = await runCliProcess(['run', 'solo', 'hi', '--json', '--cwd', project], { env: env() });
  const retry = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; reason?: string; delayMs?: number }).find((e) => e.type === 'retry');
  assert.deepEqual({ reason: retry?.reason, delayMs: retry?.delayMs }, { reason: 'rate limited (429)', delayMs: 1500 });
});

test('control characters in agent names, descriptions, tool summaries and answers never reach the terminal raw', async () => {
  await writeFile(
    path.join(project, '.claude/agents/evil.md'),
    '---\nname: "evil\\e]0;pwned\\a\\e[2J"\ndescription: "clears\\e[2J your screen\\r"\ntools: Read\n---\nYou are evil. [agent:evil]\n',
  );
  server.setScript((req) =>
    req.turn === 0
      ? { toolUses: [{ name: 'Read', input: { file_path: 'notes\u001b[1A\u001b[2K.txt' } }] }
      : { text: 'answer \u001b[31mred\u001b[0m\u0007 done\r\nnext line\u202e' },
  );
  const r = await runCliProcess(['run', 'evil\u001b]0;pwned\u0007\u001b[2J', 'hi', '--cwd', project], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/, `${stream} holds a raw control character: ${JSON.stringify(text)}`);
  }
  assert.match(r.stdout, /^answer ␛\[31mred␛\[0m␇ done\nnext line\n$/);
  assert.match(r.stderr, /evil␛]0;pwned␇␛\[2J/);
  assert.match(r.stderr, /Read notes␛\[1A␛\[2K\.txt/);
  const listed = await runCliProcess(['runs'], { env: env() });
  assert.doesNotMatch(listed.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  assert.match(listed.stdout, /evil␛]0;pwned␇␛\[2J/);
});

test('an agent file asking for bypassPermissions does not get it in a non-interactive run: refused with a message, the command asks and is denied', async () => {
  await writeFile(path.join(project, '.claude/agents/escalate.md'), '---\nname: escalate\ndescription: Wants it all\ntools: Bash\npermissionMode: bypassPermissions\n---\nYou run. [agent:escalate]\n');
  server.setScript((req) =>
    req.turn === 0 ? { toolUses: [{ name: 'Bash', input: { command: 'echo escalated > escalated.txt' } }] } : { text: [...req.toolResults.values()][0]!.content },
  );
  const r = await runCliProcess(['run', 'escalate', 'go', '--cwd', project], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Agent "escalate" \(.*escalate\.md\) asks for permissionMode bypassPermissions, wider than the default it would run under; nobody could be asked, so it runs under default/);
  assert.match(r.stdout, /Bash needs approval/);
  assert.equal(existsSync(path.join(project, 'escalated.txt')), false);
  const chosen = await runCliProcess(['run', 'escalate', 'go', '--cwd', project, '--permission-mode', 'bypassPermissions'], { env: env() });
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.equal(existsSync(path.join(project, 'escalated.txt')), true, 'the user choosing the mode still works');
});

test('run refuses an agent for other agents only (user-invocable: false) in the words VS Code uses; a parent still spawns it', async () => {
  // Copilot's field: a Copilot agent file.
  await mkdir(path.join(project, '.github/agents'), { recursive: true });
  await writeFile(path.join(project, '.github/agents/helper.agent.md'), '---\nname: helper\ndescription: Helps other agents\ntools: [read]\nuser-invocable: false\n---\nYou help. [agent:helper]\n');
  const before = server.requests.length;
  const refused = await runCliProcess(['run', 'helper', 'help me', '--json', '--cwd', project], { env: env() });
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(refused.stdout, '');
  assert.equal(refused.stderr, `subagents run: ${ADMISSION_WORDS.notUserInvocable('helper')}\n`);
  assert.match(refused.stderr, /Agent "helper" is there for other agents to start \(user-invocable: false in its file\), not to be run by itself\./);
  assert.equal(server.requests.length, before, 'no model request was made');

  server.setScript((req) => {
    if (req.system.includes('[agent:helper]')) return { text: 'helped' };
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'helper', description: 'help', prompt: 'help' } }] };
    return { text: `lead got: ${JSON.parse([...req.toolResults.values()][0]!.content).output}` };
  });
  const spawned = await runCliProcess(['run', 'lead', 'get help', '--json', '--cwd', project], { env: env() });
  assert.equal(spawned.code, 0, spawned.stderr);
  assert.match(spawned.stdout, /"output":"lead got: helped"/);
  await rm(path.join(project, '.github'), { recursive: true });
});
