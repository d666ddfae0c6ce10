// A permission mode written in an agent file narrows the mode the agent runs
// under, and widens it only with the user's consent, remembered for that
// file's content: a cloned repository cannot switch approvals off.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { AgentDefinition } from '../../../../src/core/agents/definition';
import { ModeConsents, type ModeWidening } from '../../../../src/core/tools/modeConsent';
import { PermissionGate, type ApprovalRequest, type PermissionMode } from '../../../../src/core/tools/permissions';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest } from '../../../support/scriptedServer';

const runsShell = (req: ScriptedRequest) => (req.turn === 0 ? { toolUses: [{ name: 'Bash', input: { command: 'echo ran > marker' } }] } : { text: 'done' });

/** Runs `definition` once as `mode`'s user; reports what was asked and whether the shell command ran. */
async function runOnce(definition: AgentDefinition, mode: Exclude<PermissionMode, 'plan'>, consents: ModeConsents) {
  const asked: ApprovalRequest[] = [];
  const logs: string[] = [];
  const gate = new PermissionGate(async (request) => {
    asked.push(request);
    return { allow: false, reason: 'the test denies every approval' };
  });
  const h = await harness({ agents: [definition], script: runsShell, settings: { permissionMode: mode }, engine: { gate, modeConsents: consents, log: (_level, message) => logs.push(message) } });
  try {
    const result = await h.engine.run({ agent: definition.name, prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    return { approvalsAsked: asked.length, ran: existsSync(path.join(h.dir, 'marker')), logs };
  } finally {
    await h.close();
  }
}

function consentRecorder(answer: boolean, file?: string) {
  const asked: ModeWidening[] = [];
  return { asked, consents: new ModeConsents({ file, ask: async (request) => (asked.push(request), answer) }) };
}

test('a file asking for bypassPermissions under the default mode, with nobody to ask: it runs under default, and the log says how to allow it', async () => {
  const result = await runOnce(agent('cloned', { permissionMode: 'bypassPermissions' }), 'default', new ModeConsents());
  assert.equal(result.ran, false, 'the shell command did not run unasked');
  assert.equal(result.approvalsAsked, 1, 'it was asked about, as under default');
  assert.match(result.logs.join('\n'), /Agent "cloned" \(\/agents\/cloned\.md\) asks for permissionMode bypassPermissions, wider than the default it would run under; nobody could be asked, so it runs under default\. To allow it/);
});

test('consent given: the wider mode applies, is remembered for the file as it is, and is asked again once the file changes', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-consents-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'mode-consents.json');
  const definition = agent('trusted', { permissionMode: 'bypassPermissions' });

  const first = consentRecorder(true, file);
  const granted = await runOnce(definition, 'default', first.consents);
  // The question names the run it belongs to, so a host can route it to the window that started it.
  assert.deepEqual(first.asked.map(({ runId, ...rest }) => (assert.match(runId ?? '', /^[0-9a-f]{12}$/), rest)), [
    { agentName: 'trusted', filePath: '/agents/trusted.md', requested: 'bypassPermissions', current: 'default' },
  ]);
  assert.deepEqual([granted.ran, granted.approvalsAsked], [true, 0], 'bypassPermissions: the command ran unasked');

  const later = consentRecorder(false, file);
  const remembered = await runOnce(definition, 'default', later.consents);
  assert.equal(later.asked.length, 0, 'remembered across sessions (the consent file)');
  assert.equal(remembered.ran, true);
  assert.match(await readFile(file, 'utf8'), /"agentName": "trusted"/);

  const changed = consentRecorder(false, file);
  const edited = await runOnce({ ...definition, systemPrompt: `${definition.systemPrompt}\nAlso do something else.` }, 'default', changed.consents);
  assert.equal(changed.asked.length, 1, 'the file changed: asked again');
  assert.deepEqual([edited.ran, edited.approvalsAsked], [false, 1], 'refused: back under default');
});

test('consent given but the consent file cannot be written: the run goes ahead with it, it holds for the session, and the log says it was not saved', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-consents-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // A folder that cannot be created (a file is in the way), whoever runs the test.
  await writeFile(path.join(dir, 'storage'), '');
  const file = path.join(dir, 'storage', 'mode-consents.json');
  const definition = agent('trusted', { permissionMode: 'bypassPermissions' });
  const recorder = consentRecorder(true, file);
  const granted = await runOnce(definition, 'default', recorder.consents);
  assert.deepEqual([granted.ran, granted.approvalsAsked], [true, 0], 'the answer applies');
  assert.match(
    granted.logs.join('\n'),
    /Your consent for agent "trusted" \(\/agents\/trusted\.md\) to run with permissionMode bypassPermissions could not be saved to .*mode-consents\.json \(E[A-Z]+: [^)]*\); it holds until this session ends/,
  );
  const again = await runOnce(definition, 'default', recorder.consents);
  assert.equal(recorder.asked.length, 1, 'not asked again in the same session');
  assert.equal(again.ran, true);
});

test('a file narrows freely: default under the user\'s bypassPermissions asks for the shell command; plan removes it', async () => {
  const none = consentRecorder(true);
  const narrowed = await runOnce(agent('careful', { permissionMode: 'default' }), 'bypassPermissions', none.consents);
  assert.deepEqual([narrowed.ran, narrowed.approvalsAsked, none.asked.length], [false, 1, 0]);
  const planned = await runOnce(agent('planner', { permissionMode: 'plan' }), 'bypassPermissions', none.consents);
  assert.deepEqual([planned.ran, planned.approvalsAsked], [false, 0], 'plan mode: no shell tool at all');
});

test('a subagent is weighed against its parent\'s mode: asking for more needs consent too', async () => {
  const { asked, consents } = consentRecorder(false);
  const approvals: ApprovalRequest[] = [];
  const gate = new PermissionGate(async (r) => (approvals.push(r), { allow: false, reason: 'no' }));
  const h = await harness({
    agents: [agent('lead', { permissionMode: 'acceptEdits' }), agent('helper', { permissionMode: 'bypassPermissions' })],
    settings: { permissionMode: 'acceptEdits' },
    engine: { gate, modeConsents: consents },
    script: (req) => {
      if (isAgent(req.system, 'helper')) return runsShell(req);
      return req.turn === 0 ? { toolUses: [{ name: 'Task', input: { subagent_type: 'helper', description: 'h', prompt: 'run it' } }] } : { text: 'lead done' };
    },
  });
  try {
    await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
    assert.deepEqual(asked.map((a) => [a.agentName, a.requested, a.current]), [['helper', 'bypassPermissions', 'acceptEdits']]);
    assert.deepEqual(approvals.map((a) => [a.agentName, a.toolName]), [['helper', 'Bash']], 'refused: the helper runs under its parent\'s acceptEdits');
    assert.equal(existsSync(path.join(h.dir, 'marker')), false);
  } finally {
    await h.close();
  }
});

test('a run started in plan mode stays in plan mode whatever its file asks, without a question', async () => {
  const { asked, consents } = consentRecorder(true);
  const h = await harness({ agents: [agent('eager', { permissionMode: 'bypassPermissions' })], script: runsShell, settings: { permissionMode: 'default' }, engine: { modeConsents: consents } });
  try {
    const result = await h.engine.run({ agent: 'eager', prompt: 'go', cwd: h.dir, permissionMode: 'plan' });
    assert.equal(result.status, 'completed');
    assert.equal(asked.length, 0);
    assert.match(h.server.requests[1]!.toolResults.values().next().value!.content, /not available to this agent/);
  } finally {
    await h.close();
  }
});
