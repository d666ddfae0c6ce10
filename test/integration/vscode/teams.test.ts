import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TeamDefinition } from '../../../src/core/agents/teams/teamFile';
import { buildAgentsTree, NO_FILTER } from '../../../src/surfaces/views/agentsTreeModel';
import { folderAgents } from '../../../src/surfaces/views/viewModel';
import { ChatParticipantHandler } from '../../../src/vscode/chat/chatParticipant';
import { runAgentCommand } from '../../../src/vscode/runCommands';
import { agent } from '../../support/agents';
import { fakeServices, scriptedWorkspace } from '../../support/fakeServices';
import { LEAD, memberMark, teamScript, WORKER } from '../../support/teamScenario';
import { until } from '../../support/until';
import * as vscode from '../../support/vscodeFake';

/**
 * A team in VS Code's surfaces (the vscode fake, real engines on the
 * scripted model): `@agent <team> …` runs the team file's lead with its
 * members, and the chat tells the tasks and the teammates' rests as they go
 * and ends with the task list; Run Agent runs a team by name; the Agents
 * view lists the folder's teams with their members.
 */

let aliceMayStart: () => void = () => undefined;
let gate = Promise.resolve();
// The gate is read at each request: each test sets its own.
const workspace = scriptedWorkspace((req) => teamScript({ aliceMayStart: gate })(req));

function duo(dir: string): TeamDefinition {
  return {
    name: 'duo',
    description: 'Two workers',
    lead: LEAD,
    members: [
      { name: 'alice', agent: WORKER, prompt: `${memberMark('alice')} You write the first part.` },
      { name: 'bob', agent: WORKER, prompt: `${memberMark('bob')} You write the second part.` },
    ],
    isolation: null,
    tasks: [],
    body: 'Split the goal in two.',
    filePath: `${dir}/.subagents/teams/duo.md`,
    source: 'project',
  };
}

function teamFolder() {
  // The workers write files: their files ask for the mode that lets them, which the user allows.
  const agents = [agent(LEAD), agent(WORKER, { tools: ['Read', 'Write', 'TaskList', 'TaskGet', 'TaskUpdate', 'SendMessage'], permissionMode: 'acceptEdits' })];
  const folder = workspace.folder('app', agents, () => Promise.resolve(true));
  return { ...folder, teams: [duo(folder.dir)] };
}

function resetGate(): void {
  gate = new Promise<void>((resolve) => (aliceMayStart = resolve));
}

function responseStream() {
  const writes: string[] = [];
  const write = (kind: string) => (...args: unknown[]) => writes.push(`${kind} ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`);
  return { stream: { markdown: write('markdown'), progress: write('progress'), reference: write('reference'), button: write('button'), anchor: write('anchor') }, text: () => writes.join('\n') };
}

test('@agent <team> runs the team file: the chat tells the tasks and the teammates as they go, and ends with the task list', async () => {
  resetGate();
  const fake = await fakeServices([teamFolder()]);
  const handler = new ChatParticipantHandler(Promise.resolve(fake.services));
  const out = responseStream();
  const done = (handler.handle as (...args: unknown[]) => Promise<unknown>)({ prompt: 'duo Write alpha and beta.', references: [] }, { history: [] }, out.stream, new vscode.CancellationTokenSource().token);
  await until('bob to go idle', () => fake.store.list().some((r) => Object.values(r.agents).some((a) => a.member === 'bob' && a.status === 'idle')));
  aliceMayStart();
  await done;
  const text = out.text();
  const run = fake.store.list()[0]!;
  assert.equal(run.team?.name, 'duo');
  assert.deepEqual(run.tasks?.map((t) => [t.id, t.status, t.owner]), [['1', 'completed', 'alice'], ['2', 'completed', 'bob']]);
  // However late the chat looks, everything is told, in the state that is true by then (alice may have claimed #1 already).
  assert.match(text, /▪ new task #1 _Write alpha\.txt_ \((pending|in progress · alice|completed · alice)\)/);
  assert.match(text, /◌ \*\*bob\*\* (is idle|went idle, and was woken): “My task \\#2 is blocked/);
  assert.match(text, /▸ \*\*alice\*\*/, 'a teammate goes by its team name');
  assert.match(text, /All tasks are completed: alpha\.txt and beta\.txt are written\./);
  assert.match(text, /\*\*Tasks\*\* \(2, 2 completed\) — team duo\n\n- #1 ✓ Write alpha\.txt · alice\n- #2 ✓ Write beta\.txt · bob/);
});

test('Run Agent runs a team by its name; an unknown name lists the agents and the teams', async () => {
  resetGate();
  aliceMayStart();
  const folder = teamFolder();
  const fake = await fakeServices([folder]);
  const agentId = await runAgentCommand(fake.services, async () => undefined, { agent: 'duo', task: 'Write alpha and beta.', notify: false });
  assert.ok(agentId);
  await until('the team run to end', () => fake.store.get(agentId)?.endedAt);
  const run = fake.store.get(agentId)!;
  assert.equal(run.agents[run.rootAgentId]!.agentName, LEAD);
  assert.deepEqual(Object.values(run.agents).filter((a) => a.member).map((a) => a.member).sort(), ['alice', 'bob']);
  assert.equal(await runAgentCommand(fake.services, async () => undefined, { agent: 'trio', task: 'x' }), undefined);
  assert.match(vscode.shown.messages.at(-1)?.text ?? '', /^Unknown agent "trio"\. Available: team-lead-agent, team-worker\. Teams: duo$/);
});

test('the Agents view lists a folder\'s teams with their members, an unknown member agent marked, runnable by name', () => {
  const team = { ...duo('/p'), members: [...duo('/p').members, { name: 'carol', agent: 'ghost' }] };
  const folder = folderAgents({ key: 'k', name: 'app', folder: '/p', catalog: null, disabled: [], teams: { teams: [team], shadowed: [], problems: [{ filePath: '/p/.subagents/teams/bad.md', severity: 'error', message: 'A team file starts with YAML frontmatter.' }] } });
  folder.agents = [LEAD, WORKER].map((name) => ({ name, description: '', source: 'project', family: '.claude', filePath: `/p/.claude/agents/${name}.md`, model: null, disabled: false, userInvocable: true, shadowedBy: null, color: null, foundIn: null }));
  const model = buildAgentsTree([folder], true, NO_FILTER);
  const teams = model.roots.find((n) => n.kind === 'teams');
  assert.ok(teams && teams.kind === 'teams');
  const [node] = teams.children;
  assert.deepEqual([node!.agent, node!.folder, node!.runnable], ['duo', 'k', true], 'its node is the argument Run Agent takes');
  assert.deepEqual(node!.children.map((m) => [m.name, m.agent, m.known]), [['alice', WORKER, true], ['bob', WORKER, true], ['carol', 'ghost', false]]);
  assert.deepEqual(folder.warnings.map((w) => w.message), ['.subagents/teams/bad.md: A team file starts with YAML frontmatter.']);
  const untrusted = buildAgentsTree([folder], false, NO_FILTER).roots.find((n) => n.kind === 'teams');
  assert.equal(untrusted?.kind === 'teams' && untrusted.children[0]!.runnable, false, 'nothing runs untrusted');
});
