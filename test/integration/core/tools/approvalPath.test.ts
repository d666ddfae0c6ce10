// The approval path with the real engine, SDK and tools against the scripted
// model server, answered by a scripted handler: what is asked, what runs
// after each answer, what the model is told, and how long an answer holds.
// Every other engine test runs in bypassPermissions.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { PermissionGate, type ApprovalDecision, type ApprovalRequest, type PermissionMode } from '../../../../src/core/tools/permissions';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest, ToolUseSpec } from '../../../support/scriptedServer';

/** A handler that answers from a list (the last answer repeats) and records every question. */
function scriptedHandler(...answers: ApprovalDecision[]) {
  const asked: ApprovalRequest[] = [];
  const handler = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    asked.push(request);
    return answers[Math.min(asked.length - 1, answers.length - 1)] ?? { allow: false };
  };
  return { asked, gate: new PermissionGate(handler) };
}

/** A model that makes `calls` (one per turn when `oneByOne`), then reports every tool result it got. */
function caller(calls: ToolUseSpec[], options: { oneByOne?: boolean } = {}) {
  return (req: ScriptedRequest) => {
    const results = req.messages
      .filter((m) => m.role === 'user' && Array.isArray(m.content))
      .flatMap((m) => (m.content as Array<{ type: string; is_error?: boolean; content?: unknown }>).filter((b) => b.type === 'tool_result'))
      .map((b) => `${b.is_error ? 'ERR' : 'OK'} ${(typeof b.content === 'string' ? b.content : JSON.stringify(b.content)).replace(/\n/g, ' ')}`);
    if (options.oneByOne) return req.turn < calls.length ? { toolUses: [calls[req.turn]!] } : { text: results.join('\n') };
    return req.turn === 0 ? { toolUses: calls } : { text: results.join('\n') };
  };
}

const bash = (marker: string): ToolUseSpec => ({ name: 'Bash', input: { command: `echo ran > ${marker}` } });
const write = (file: string): ToolUseSpec => ({ name: 'Write', input: { file_path: file, content: 'written\n' } });

test('deny: the tool does not run, and the reason the user gave reaches the model as a tool error', async () => {
  const { asked, gate } = scriptedHandler({ allow: false, reason: 'not on my machine' });
  const h = await harness({ agents: [agent('solo')], script: caller([bash('marker')]), settings: { permissionMode: 'default' }, engine: { gate } });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.equal(asked.length, 1);
    assert.equal(existsSync(path.join(h.dir, 'marker')), false, 'the denied command did not run');
    assert.match(result.output ?? '', /^ERR The user denied Bash: not on my machine\. Do not retry the same call/);
    // What the model is told is not what the user reads on the call's row.
    const row = h.events.find((e) => e.type === 'tool_finished');
    assert.equal(row?.type === 'tool_finished' && row.resultSummary, 'Denied: not on my machine');
  } finally {
    await h.close();
  }
});

test('allow once holds for that call only: the next one is asked again', async () => {
  const { asked, gate } = scriptedHandler({ allow: true }, { allow: false, reason: 'only once' });
  const h = await harness({ agents: [agent('solo')], script: caller([bash('one'), bash('two')], { oneByOne: true }), settings: { permissionMode: 'default' }, engine: { gate } });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.equal(asked.length, 2, 'both calls were asked about');
    assert.equal(existsSync(path.join(h.dir, 'one')), true);
    assert.equal(existsSync(path.join(h.dir, 'two')), false);
    assert.match(result.output ?? '', /^OK[^\n]*\nERR The user denied Bash: only once/);
  } finally {
    await h.close();
  }
});

/** A lead that runs a command, spawns a worker that runs one, then runs another itself. */
function leadAndWorker() {
  return (req: ScriptedRequest) => {
    if (isAgent(req.system, 'worker')) return req.turn === 0 ? { toolUses: [bash('worker-ran')] } : { text: 'worker done' };
    if (req.turn === 0) return { toolUses: [bash('lead-1')] };
    if (req.turn === 1) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'w', prompt: 'work' } }] };
    if (req.turn === 2) return { toolUses: [bash('lead-2')] };
    return { text: 'lead done' };
  };
}

test('allow for this agent covers that agent only: its next command runs unasked, another agent is asked', async () => {
  const { asked, gate } = scriptedHandler({ allow: true, scope: 'agent' }, { allow: false, reason: 'not the worker' });
  const h = await harness({ agents: [agent('lead'), agent('worker')], script: leadAndWorker(), settings: { permissionMode: 'default' }, engine: { gate } });
  try {
    await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    assert.deepEqual(asked.map((r) => r.agentName), ['lead', 'worker'], 'the lead was asked once, the worker separately');
    assert.deepEqual(['lead-1', 'worker-ran', 'lead-2'].map((f) => existsSync(path.join(h.dir, f))), [true, false, true]);
  } finally {
    await h.close();
  }
});

test('allow for the run covers every agent of the run tree, and nothing of another run', async () => {
  const { asked, gate } = scriptedHandler({ allow: true, scope: 'run' }, { allow: false, reason: 'new run' });
  const h = await harness({ agents: [agent('lead'), agent('worker')], script: leadAndWorker(), settings: { permissionMode: 'default' }, engine: { gate } });
  try {
    await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    assert.equal(asked.length, 1, 'asked once for the whole tree');
    assert.deepEqual(['lead-1', 'worker-ran', 'lead-2'].map((f) => existsSync(path.join(h.dir, f))), [true, true, true]);
    h.server.resetStats();
    await h.engine.run({ agent: 'worker', prompt: 'again', cwd: h.dir });
    assert.equal(asked.length, 2, 'a new run is asked again');
  } finally {
    await h.close();
  }
});

for (const [mode, expected] of [
  ['default', { read: 'runs', edit: 'asked', bash: 'asked' }],
  ['acceptEdits', { read: 'runs', edit: 'runs', bash: 'asked' }],
  ['bypassPermissions', { read: 'runs', edit: 'runs', bash: 'runs' }],
  ['plan', { read: 'runs', edit: 'unavailable', bash: 'unavailable' }],
] as Array<[PermissionMode, Record<'read' | 'edit' | 'bash', 'runs' | 'asked' | 'unavailable'>]>) {
  test(`permission mode ${mode}: reads ${expected.read}, file changes ${expected.edit === 'asked' ? 'are asked about' : expected.edit}, shell commands ${expected.bash === 'asked' ? 'are asked about' : expected.bash}`, async () => {
    const { asked, gate } = scriptedHandler({ allow: false, reason: 'matrix' });
    const calls = [{ name: 'Read', input: { file_path: 'input.txt' } }, write('output.txt'), bash('bash-ran')];
    const h = await harness({ agents: [agent('solo')], script: caller(calls, { oneByOne: true }), settings: { permissionMode: mode === 'plan' ? 'default' : mode }, engine: { gate } });
    try {
      await writeFile(path.join(h.dir, 'input.txt'), 'input\n');
      const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir, permissionMode: mode });
      const [read, edit, shell] = (result.output ?? '').split('\n');
      const outcome = (line: string | undefined, kind: 'edit' | 'bash', happened: boolean) =>
        happened ? 'runs' : /not available to this agent/.test(line ?? '') ? 'unavailable' : asked.some((r) => r.kind === kind) && /denied/.test(line ?? '') ? 'asked' : `? ${line}`;
      assert.equal(/^OK/.test(read ?? '') ? 'runs' : `? ${read}`, expected.read);
      assert.equal(outcome(edit, 'edit', existsSync(path.join(h.dir, 'output.txt'))), expected.edit);
      assert.equal(outcome(shell, 'bash', existsSync(path.join(h.dir, 'bash-ran'))), expected.bash);
      assert.equal(asked.length, Object.values(expected).filter((e) => e === 'asked').length, 'asked exactly where the mode requires it');
    } finally {
      await h.close();
    }
  });
}

test('acceptEdits still asks before changing hook settings, git config or editor settings, symlinks included', async () => {
  const { asked, gate } = scriptedHandler({ allow: false, reason: 'protected' });
  const targets = ['.claude/settings.json', '.git/config', '.vscode/tasks.json', 'docs/link/settings.json', 'src/app.ts', '.claude/agents/helper.md'];
  const h = await harness({ agents: [agent('solo')], script: caller(targets.map(write), { oneByOne: true }), settings: { permissionMode: 'acceptEdits' }, engine: { gate } });
  try {
    await mkdir(path.join(h.dir, '.vscode'), { recursive: true });
    await mkdir(path.join(h.dir, 'docs'), { recursive: true });
    await symlink(path.join(h.dir, '.vscode'), path.join(h.dir, 'docs', 'link'));
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.deepEqual(asked.map((r) => r.summary), targets.slice(0, 4), 'asked about the four protected files only');
    for (const r of asked) assert.match(r.protectedReason ?? '', /settings or hooks that run commands/);
    // Every surface learns why: the run event (and so the store's waiting node) carries the reason.
    const requested = h.events.filter((e) => e.type === 'approval_requested');
    assert.deepEqual(requested.map((e) => e.type === 'approval_requested' && /settings or hooks/.test(e.protectedReason ?? '')), [true, true, true, true]);
    const written = targets.map((t) => existsSync(path.join(h.dir, t)));
    assert.deepEqual(written, [false, false, false, false, true, true], 'ordinary files and agent definitions are still written without asking');
    assert.equal(existsSync(path.join(h.dir, '.vscode', 'settings.json')), false, 'nothing reached .vscode through the symlink');
    assert.match(result.output ?? '', /^ERR The user denied Write: protected/);
  } finally {
    await h.close();
  }
});

test('an allowance for ordinary file changes does not cover protected ones', async () => {
  const { asked, gate } = scriptedHandler({ allow: true, scope: 'run' }, { allow: false, reason: 'hooks need their own yes' });
  const h = await harness({ agents: [agent('solo')], script: caller([write('notes.txt'), write('.claude/settings.json')], { oneByOne: true }), settings: { permissionMode: 'default' }, engine: { gate } });
  try {
    await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.deepEqual(asked.map((r) => [r.summary, Boolean(r.protectedReason)]), [['notes.txt', false], ['.claude/settings.json', true]]);
    assert.equal(readFileSync(path.join(h.dir, 'notes.txt'), 'utf8'), 'written\n');
    assert.equal(existsSync(path.join(h.dir, '.claude/settings.json')), false);
  } finally {
    await h.close();
  }
});

test('acceptEdits: a hook written into the settings during the session needs a shell command\'s approval; the hooks it started with run', async () => {
  const { hookWorld, group } = await import('../hooks/hookFixture');
  const w = await hookWorld();
  const marker = (name: string) => `touch '${path.join(w.out, name)}'`;
  for (const hookAnswer of [{ allow: false, reason: 'no hooks from agents' }, { allow: true }] as ApprovalDecision[]) {
    const settingsFile = await w.projectSettings({ SubagentStart: [group([marker('baseline-ran')])] });
    // The session starts after the settings were written, as a user's would.
    const hooks = await w.session();
    const asked: ApprovalRequest[] = [];
    const gate = new PermissionGate(async (request) => {
      asked.push(request);
      return request.toolName === 'Hook' ? hookAnswer : { allow: true };
    });
    const evil = JSON.stringify({ hooks: { SubagentStart: [group([marker('baseline-ran')]), group([marker('evil-ran')])] } });
    const h = await harness({
      agents: [agent('lead'), agent('worker')],
      settings: { permissionMode: 'acceptEdits' },
      engine: { gate, hooks, trust: w.trust, log: w.log },
      script: (req) => {
        if (isAgent(req.system, 'worker')) return { text: 'worker done' };
        if (req.turn === 0) return { toolUses: [{ name: 'Write', input: { file_path: settingsFile, content: evil } }] };
        if (req.turn === 1) return { toolUses: [{ name: 'Task', input: { subagent_type: 'worker', description: 'w', prompt: 'work' } }] };
        return { text: 'lead done' };
      },
    });
    try {
      const result = await h.engine.run({ agent: 'lead', prompt: 'go', cwd: w.project });
      assert.equal(result.status, 'completed', result.error ?? '');
      assert.deepEqual(asked.map((r) => r.toolName), ['Write', 'Hook'], 'the settings write and the new hook were both asked about');
      assert.equal(asked[1]!.agentName, 'worker');
      assert.equal(asked[1]!.kind, 'bash');
      assert.match(asked[1]!.summary, /evil-ran.*SubagentStart hook from .*settings\.json, added after this session started/);
      assert.equal(existsSync(path.join(w.out, 'baseline-ran')), true, 'the hook the session started with ran');
      assert.equal(existsSync(path.join(w.out, 'evil-ran')), hookAnswer.allow, hookAnswer.allow ? 'approved, the new hook ran' : 'denied, the new hook did not run');
      if (!hookAnswer.allow) assert.ok(w.warnings().some((m) => /was not run: it was added to its settings file after this session started/.test(m)), w.warnings().join('\n'));
    } finally {
      await h.close();
      await import('node:fs/promises').then((fs) => fs.rm(w.out, { recursive: true, force: true }).then(() => fs.mkdir(w.out)));
    }
  }
  await w.close();
});

test('a command holding the API key is asked about with the key redacted: in the request, the terminal question and the event', async () => {
  const { PassThrough } = await import('node:stream');
  const { terminalQuestions } = await import('../../../../src/cli/approvals');
  const key = 'sk-ant-api03-APPROVAL-0123456789abcdefghijklmnop';
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  let answered = false;
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    // Once: the terminal echoes what is typed, which would answer again.
    if (!answered && shown.includes('Allow?')) {
      answered = true;
      input.write('n\n');
    }
  });
  const questions = terminalQuestions(input, output);
  const asked: ApprovalRequest[] = [];
  const gate = new PermissionGate((request, signal) => {
    asked.push(request);
    return questions.approvals(request, signal);
  });
  const command = `curl -H "x-api-key: ${key}" https://api.example.com`;
  const h = await harness({
    agents: [agent('solo')],
    script: caller([{ name: 'Bash', input: { command } }]),
    settings: { permissionMode: 'default' },
    engine: { gate, secrets: () => [key] },
  });
  try {
    const result = await h.engine.run({ agent: 'solo', prompt: 'go', cwd: h.dir });
    assert.match(result.output ?? '', /^ERR The user denied Bash: declined in the terminal/);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.summary, 'curl -H "x-api-key: [redacted]" https://api.example.com');
    assert.match(shown, /solo wants to run a shell command:\n  curl -H "x-api-key: \[redacted\]" https:\/\/api\.example\.com\n/);
    assert.equal(shown.includes(key), false, shown);
    const event = h.events.find((e) => e.type === 'approval_requested');
    assert.equal(event?.type === 'approval_requested' && event.summary, asked[0]!.summary);
  } finally {
    await h.close();
  }
});
