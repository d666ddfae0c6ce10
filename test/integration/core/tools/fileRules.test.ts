// An agent file's own permission rules (Roo Code's fileRegex, opencode's
// and Kilo's permission, Kiro's allowedTools and toolsSettings, Cursor's
// readonly) as the engine applies them: definitions read from this
// project's own files, run on the real engine and SDK against the scripted
// server, calls refused, asked or run as the file says.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { AgentDefinition, AgentFamily } from '../../../../src/core/agents/definition';
import { parseAgentText } from '../../../../src/core/agents/parsing/parse';
import { ModeConsents, type ModeWidening } from '../../../../src/core/tools/modeConsent';
import { PermissionGate, type ApprovalRequest, type PermissionMode } from '../../../../src/core/tools/permissions';
import { harness } from '../../../support/engineHarness';
import type { Reply, ScriptedRequest } from '../../../support/scriptedServer';

function read(text: string, filePath: string, family: AgentFamily): AgentDefinition[] {
  const parsed = parseAgentText(text, { filePath, source: 'project', family });
  assert.ok(parsed.definition, JSON.stringify(parsed.warnings));
  return [parsed.definition, ...(parsed.siblings ?? [])];
}

type Call = { name: string; input: Record<string, unknown> };

/** Makes the calls one per turn, then ends; returns what each call's result said, what was asked, and the requests. */
async function run(definition: AgentDefinition, calls: Call[], opts: { mode?: Exclude<PermissionMode, 'plan'>; allow?: boolean; consent?: boolean } = {}) {
  const asked: ApprovalRequest[] = [];
  const consentsAsked: ModeWidening[] = [];
  const gate = new PermissionGate(async (request) => (asked.push(request), { allow: opts.allow ?? true }));
  const consents = new ModeConsents({ ask: async (request) => (consentsAsked.push(request), opts.consent ?? false) });
  const script = (req: ScriptedRequest): Reply => (req.turn < calls.length ? { toolUses: [calls[req.turn]!] } : { text: 'done' });
  const h = await harness({ agents: [{ ...definition, filePath: definition.filePath }], script, settings: { permissionMode: opts.mode ?? 'default' }, engine: { gate, modeConsents: consents } });
  try {
    const result = await h.engine.run({ agent: definition.name, prompt: 'go', cwd: h.dir });
    assert.equal(result.status, 'completed', result.error ?? '');
    const results = h.server.requests.slice(1).map((req) => [...req.toolResults.values()][0]!);
    return { results, asked, consentsAsked, dir: h.dir, requests: h.server.requests };
  } finally {
    await h.close();
  }
}

const write = (file_path: string): Call => ({ name: 'Write', input: { file_path, content: 'new\n' } });
const bash = (command: string): Call => ({ name: 'Bash', input: { command } });

test("Roo Code's fileRegex: an edit outside the pattern is refused, naming the pattern; one inside goes through as the mode says", async () => {
  const [docs] = read(
    'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: You write docs.\n    groups:\n      - read\n      - - edit\n        - fileRegex: \\.md$\n          description: Markdown only\n',
    '/repo/.roomodes',
    '.roo',
  );
  const outcome = await run(docs!, [write('src/app.ts'), write('notes.md')]);
  assert.equal(outcome.results[0]!.isError, true);
  assert.match(outcome.results[0]!.content, /Write \(src\/app\.ts\) is refused by this agent's own file: mode "docs" may only edit files matching \\\.md\$ \(Markdown only\)/);
  assert.equal(existsSync(path.join(outcome.dir, 'src/app.ts')), false, 'nothing was written');
  // The refused call was not even asked about; the allowed one was, as the default mode asks about every write.
  assert.deepEqual(outcome.asked.map((a) => a.summary), ['notes.md']);
  assert.equal(outcome.results[1]!.isError, false);
});

test("opencode's per-command bash rules: deny refuses, ask asks, allow runs unasked once the user consents to the file", async () => {
  const [agent] = read('---\ndescription: Ops.\npermission:\n  bash:\n    "*": ask\n    "echo ok*": allow\n    "rm *": deny\n---\nYou do ops.\n', '/repo/.opencode/agents/ops.md', '.opencode');
  const consented = await run(agent!, [bash('echo ok > allowed'), bash('rm -rf build'), bash('echo asked > asked')], { consent: true });
  assert.equal(consented.consentsAsked.length, 1);
  assert.deepEqual(consented.consentsAsked[0]!.rules, ['permission.bash "echo ok*": allow']);
  assert.equal(consented.consentsAsked[0]!.requested, 'bypassPermissions');
  assert.equal(consented.results[0]!.isError, false, consented.results[0]!.content);
  assert.match(consented.results[1]!.content, /Bash \(rm -rf build\) is refused by this agent's own file: permission\.bash "rm \*": deny/);
  // Only the `*: ask` command was asked about.
  assert.deepEqual(consented.asked.map((a) => a.summary), ['echo asked > asked']);

  // Without consent the allow rule loosens nothing: the command is asked about as the mode says.
  const refused = await run(agent!, [bash('echo ok > allowed')], { consent: false });
  assert.deepEqual(refused.asked.map((a) => a.summary), ['echo ok > allowed']);
});

test('an ask rule asks even where the mode would not (bypassPermissions), and with nobody to answer the call is refused saying why', async () => {
  const [agent] = read('---\ndescription: Careful.\npermission:\n  read: ask\n---\nYou read carefully.\n', '/repo/.opencode/agents/careful.md', '.opencode');
  const outcome = await run(agent!, [{ name: 'Read', input: { file_path: 'x.txt' } }], { mode: 'bypassPermissions', allow: false });
  assert.deepEqual(outcome.asked.map((a) => [a.kind, a.toolName]), [['tool', 'Read']]);
  assert.equal(outcome.results[0]!.isError, true);
});

test("Kiro's toolsSettings: denied commands are refused, allowed ones run unasked with consent; a project file's allow rules ask for it once", async () => {
  const [agent] = read(
    JSON.stringify({ name: 'kiro-ops', description: 'Ops.', tools: ['shell'], toolsSettings: { shell: { allowedCommands: ['echo hi'], deniedCommands: ['rm .*'] } } }),
    '/repo/.kiro/agents/kiro-ops.json',
    '.kiro',
  );
  const outcome = await run(agent!, [bash('echo hi'), bash('rm -rf /tmp/nothing'), bash('echo other')], { consent: true });
  assert.equal(outcome.results[0]!.isError, false);
  assert.match(outcome.results[1]!.content, /refused by this agent's own file: toolsSettings\.shell\.deniedCommands "rm \.\*"/);
  assert.deepEqual(outcome.asked.map((a) => a.summary), ['echo other']);
});

test("Cursor's readonly: the agent is offered no tool that writes, runs a command or spawns a writer", async () => {
  const [agent] = read('---\nname: looker\ndescription: Looks.\nreadonly: true\n---\nYou look.\n', '/repo/.cursor/agents/looker.md', '.cursor');
  const outcome = await run(agent!, []);
  const offered = outcome.requests[0]!.toolNames;
  for (const tool of ['Write', 'Edit', 'MultiEdit', 'Bash']) assert.ok(!offered.includes(tool), `${tool} offered: ${offered.join(', ')}`);
  assert.ok(offered.includes('Read'));
});
