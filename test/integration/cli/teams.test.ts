import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { RunSnapshot } from '../../../src/protocol/runSnapshot';
import { runCliProcess, startCliProcess, type CliEvent } from '../../support/cliProcess';
import { startScriptedServer } from '../../support/scriptedServer';
import { LEAD, teamScript, WORKER, writeTeamProject } from '../../support/teamScenario';
import { until } from '../../support/until';
import { makeSandbox } from '../core/isolation/helpers';

/**
 * A team from the terminal, the whole way: `subagents run duo <goal>` runs
 * the team file by its name; the lead creates two tasks (the second
 * blocked by the first) and spawns both members by name; bob's claim of the
 * blocked task is refused and he goes idle; alice's message wakes him; both
 * complete, each change on its own branch and nothing in the user's tree;
 * the lead sees the list complete; `subagents runs <runId> --json` shows the
 * tasks completed with their owners.
 */

type Event = CliEvent;

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

test('CLI: a team file runs by its name; blocked claim, idle, wake by message, two branches, the task list in the history', { timeout: 180_000 }, async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n' });
  t.after(() => sb.cleanup());
  await writeTeamProject(sb.repo);
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'team']);
  const aliceMayStart = gate();
  const server = await startScriptedServer(teamScript({ aliceMayStart: aliceMayStart.wait }));
  t.after(() => server.close());
  const config = path.join(sb.root, 'config');
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const cli = (...args: string[]) => runCliProcess(args, { env, cwd: sb.repo, timeoutMs: 60_000 });

  // Listed as a team, with what its file declares.
  const listing = JSON.parse((await cli('agents', '--json')).stdout) as { agents: Array<{ kind: string; name: string }>; teams: Array<Record<string, unknown>> };
  assert.ok(listing.agents.every((a) => a.kind === 'agent'));
  assert.deepEqual(
    listing.teams.map((team) => [team.kind, team.name, team.source, team.lead, (team.members as Array<{ name: string; agent: string }>).map((m) => `${m.name}:${m.agent}`)]),
    [['team', 'duo', 'project', LEAD, [`alice:${WORKER}`, `bob:${WORKER}`]]],
  );

  const started = startCliProcess(['run', 'duo', 'Write alpha and beta.', '--json', '--permission-mode', 'bypassPermissions'], { env, cwd: sb.repo });
  t.after(() => started.child.kill('SIGKILL'));
  const { events } = started;

  const bob = await until('bob to start', () => events.find((e) => e.type === 'agent_started' && e.member === 'bob'));
  await until('bob to go idle after his refused claim', () => events.find((e) => e.type === 'agent_idle' && e.idle === true && e.agentId === bob.agentId));
  aliceMayStart.open();
  const code = await started.exited;
  const { stdout, stderr } = started.output();
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; output: string; runId: string };
  assert.equal(result.status, 'completed');
  assert.equal(result.output, 'All tasks are completed: alpha.txt and beta.txt are written.');

  // bob was woken by alice's message, after he had gone idle.
  const idleAt = events.findIndex((e) => e.type === 'agent_idle' && e.idle === true && e.agentId === bob.agentId);
  const message = events.findIndex((e) => e.type === 'message_queued' && e.agentId === bob.agentId && (e.from as { agentName?: string } | null)?.agentName === 'alice');
  const woke = events.findIndex((e) => e.type === 'agent_idle' && e.idle === false && e.agentId === bob.agentId);
  assert.ok(idleAt >= 0 && idleAt < message && message < woke, `idle ${idleAt}, message ${message}, woke ${woke}`);

  // The history has the task list, completed, with owners.
  const runs = await cli('runs', result.runId, '--json');
  assert.equal(runs.code, 0, runs.stderr);
  const run = JSON.parse(runs.stdout) as RunSnapshot;
  assert.deepEqual(run.tasks?.map((task) => [task.id, task.subject, task.status, task.owner]), [
    ['1', 'Write alpha.txt', 'completed', 'alice'],
    ['2', 'Write beta.txt', 'completed', 'bob'],
  ]);
  assert.equal(run.team?.name, 'duo');
  const members = Object.values(run.agents).filter((a) => a.member);
  assert.deepEqual(members.map((m) => [m.member, m.status]).sort(), [['alice', 'completed'], ['bob', 'completed']]);
  // The tree says so too.
  const tree = (await cli('runs', result.runId)).stdout;
  assert.match(tree, /Tasks \(2, 2 completed\)/);
  assert.match(tree, /#2 ✓ Write beta\.txt · bob/);

  // Each change on its own branch, nothing in the user's tree.
  assert.equal(existsSync(path.join(sb.repo, 'alpha.txt')), false);
  assert.equal(sb.git(['status', '--porcelain']).trim(), '');
  const branches = members.map((m) => m.worktree!.branch);
  assert.equal(new Set(branches).size, 2);
  const files = members.map((m) => sb.git(['diff', '--name-only', m.worktree!.baseCommit, m.worktree!.branch]).trim());
  assert.deepEqual(files.sort(), ['alpha.txt', 'beta.txt']);
});

test('CLI: a team whose member names an unknown agent is refused before anything runs; a broken team file says why; an unknown name lists the teams', { timeout: 60_000 }, async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n' });
  t.after(() => sb.cleanup());
  await writeTeamProject(sb.repo);
  writeFileSync(path.join(sb.repo, '.subagents/teams/typo.md'), `---\nname: typo\nlead: ${LEAD}\nmembers:\n  - name: carol\n    agent: no-such-agent\n---\nGo.\n`);
  writeFileSync(path.join(sb.repo, '.subagents/teams/broken.md'), 'no frontmatter here\n');
  const server = await startScriptedServer(() => ({ text: 'should not run' }));
  t.after(() => server.close());
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: path.join(sb.root, 'config'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const typo = await runCliProcess(['run', 'typo', 'go'], { env, cwd: sb.repo });
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /Team "typo": member "carol" names the agent "no-such-agent", which is not defined\. Available: /);
  const broken = await runCliProcess(['run', 'broken', 'go'], { env, cwd: sb.repo });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /The team file .*broken\.md could not be read: A team file starts with YAML frontmatter/);
  const unknown = await runCliProcess(['run', 'dou', 'go'], { env, cwd: sb.repo });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Unknown agent "dou"\. Available: .*\. Teams: duo, typo\n/);
  assert.equal(server.requests.length, 0, 'nothing was sent to the model');
  const listing = JSON.parse((await runCliProcess(['agents', '--json'], { env, cwd: sb.repo })).stdout) as { teamProblems: Array<{ filePath: string; severity: string }> };
  assert.deepEqual(listing.teamProblems.map((p) => [path.basename(p.filePath), p.severity]), [['broken.md', 'error']]);
});

test('CLI: "subagents agents <team>" shows the team a name runs (an agent of the name wins), and a name neither has lists both', { timeout: 60_000 }, async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n' });
  t.after(() => sb.cleanup());
  await writeTeamProject(sb.repo);
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: path.join(sb.root, 'config') };
  const text = await runCliProcess(['agents', 'duo'], { env, cwd: sb.repo });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^duo \(team\)\n/);
  assert.match(text.stdout, new RegExp(`Lead: +${LEAD}\n`));
  assert.match(text.stdout, new RegExp(`Members \\(2\\):\n  alice  agent ${WORKER}\n    \\[member:alice\\] You write the first part\\.\n  bob  agent ${WORKER}\n`));
  assert.match(text.stdout, /The lead's brief \(given with the goal and the roster\):\n\nSplit the goal into two tasks/);
  const json = JSON.parse((await runCliProcess(['agents', 'duo', '--json'], { env, cwd: sb.repo })).stdout) as { kind: string; lead: string; members: Array<{ name: string }>; brief: string };
  assert.equal(json.kind, 'team');
  assert.equal(json.lead, LEAD);
  assert.deepEqual(json.members.map((m) => m.name), ['alice', 'bob']);
  assert.match(json.brief, /^Split the goal/);
  // An agent's name still shows the agent, resolved.
  const agent = await runCliProcess(['agents', WORKER], { env, cwd: sb.repo });
  assert.equal(agent.code, 0, agent.stderr);
  assert.match(agent.stdout, new RegExp(`^${WORKER}\n`));
  // A team named like an agent: the agent is what runs, and what is shown, with a warning.
  writeFileSync(path.join(sb.repo, `.subagents/teams/${WORKER}.md`), `---\nlead: ${LEAD}\n---\nGo.\n`);
  const both = await runCliProcess(['agents', WORKER], { env, cwd: sb.repo });
  assert.match(both.stdout, new RegExp(`^${WORKER}\n`));
  assert.match(both.stderr, /is an agent and a team .*showing the agent/);
  const unknown = await runCliProcess(['agents', 'dou'], { env, cwd: sb.repo });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown agent "dou"\. Available: .*\. Teams: duo, team-worker\n/);
});

test('CLI: a follow-up to the lead continues the team: its task list, and a teammate woken by name with its own conversation', { timeout: 120_000 }, async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n' });
  t.after(() => sb.cleanup());
  await writeTeamProject(sb.repo);
  const seen: { list?: string; alice?: string[] } = {};
  const server = await startScriptedServer((req) => {
    const convo = JSON.stringify(req.messages);
    if (req.system.includes(`[agent:${WORKER}]`)) {
      const texts = req.messages.filter((m) => m.role === 'user').flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>) : []).map((b) => b.text ?? ''));
      if (convo.includes('gamma')) seen.alice = texts;
      return { text: convo.includes('gamma') ? 'gamma noted' : 'alpha noted' };
    }
    const followUp = convo.includes('Now gamma');
    const results = [...req.toolResults.values()].map((r) => r.content);
    if (!followUp) {
      if (req.turn === 0) return { toolUses: [{ name: 'TaskCreate', input: { subject: 'Note alpha', description: '' } }, { name: 'Task', input: { name: 'alice', description: 'notes', prompt: '[member:alice] note alpha' } }] };
      if (results.length) return { text: 'waiting' };
      return { text: 'first round done' };
    }
    if (results.length === 0 && JSON.stringify(req.messages.at(-1)).includes('Now gamma.')) {
      return { toolUses: [{ name: 'TaskList', input: {} }, { name: 'SendMessage', input: { to: 'alice', message: 'Please note gamma too.' } }] };
    }
    const list = [...req.toolResults.values()].find((r) => /^\d+ tasks?, /.test(r.content));
    if (list) {
      seen.list = list.content;
      return { text: 'waiting for alice' };
    }
    return { text: 'second round done' };
  });
  t.after(() => server.close());
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: path.join(sb.root, 'config'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const first = await runCliProcess(['run', 'duo', 'Note things.', '--json', '--permission-mode', 'bypassPermissions'], { env, cwd: sb.repo });
  assert.equal(first.code, 0, first.stderr);
  const { agentId: leadId, output } = JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { agentId: string; output: string };
  assert.equal(output, 'first round done');

  // Another process: the team comes back from the history.
  const again = await runCliProcess(['resume', leadId, 'Now gamma.', '--json', '--permission-mode', 'bypassPermissions'], { env, cwd: sb.repo });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((JSON.parse(again.stdout.trim().split('\n').at(-1)!) as { output: string }).output, 'second round done');
  assert.match(seen.list ?? '', /^1 task, 0 completed:\n#1 \[pending\] Note alpha$/m, 'the task list came back with the run');
  assert.ok(seen.alice?.some((t) => t.includes('[member:alice] note alpha')), 'alice kept her conversation');
  assert.ok(seen.alice?.some((t) => /<message from="team-lead-agent" agent-id="\w+" id="m\w+">\nPlease note gamma too\.\n<\/message>/.test(t)));
  const events = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as Event);
  assert.ok(events.some((e) => e.type === 'agent_started' && e.member === 'alice' && e.resumed === true), 'alice was continued as a teammate');
  assert.ok(events.some((e) => e.type === 'agent_idle' && e.idle === true), 'and went idle again');

  // You reach her by her team name too: the newest run's alice, continued with her conversation.
  const aliceId = events.find((e) => e.type === 'agent_started' && e.member === 'alice')!.agentId;
  const sent = await runCliProcess(['send', 'alice', 'And delta.', '--json', '--permission-mode', 'bypassPermissions'], { env, cwd: sb.repo });
  assert.equal(sent.code, 0, sent.stderr);
  // Her lead has ended: the end of her turn is her end (the lead hears of it when it is continued).
  const lines = sent.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; agentId: string; status?: string });
  const result = lines.find((l) => l.type === 'result')!;
  assert.deepEqual([result.agentId, result.status], [aliceId, 'completed']);
  assert.ok(!lines.some((l) => l.type === 'agent_idle' && l.agentId === aliceId), 'she did not go idle with nobody to wake her');
  assert.ok(seen.alice?.some((t) => t.includes('And delta.')), 'the message reached alice');
});

test('CLI: applying teammates one after another stops before one\'s change merges over another\'s, naming the file; --yes merges with conflict markers', { timeout: 120_000 }, async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n', 'notes.txt': 'notes\n' });
  t.after(() => sb.cleanup());
  await writeTeamProject(sb.repo);
  sb.git(['add', '-A']);
  sb.git(['commit', '-q', '-m', 'team']);
  const server = await startScriptedServer((req) => {
    if (req.system.includes(`[agent:${WORKER}]`)) {
      const who = JSON.stringify(req.messages[0]).includes('[member:alice]') ? 'alice' : 'bob';
      const cwd = /Working directory: (\S+)/.exec(req.system)![1]!;
      if (req.turn === 0) return { toolUses: [{ name: 'Write', input: { file_path: path.join(cwd, 'README.md'), content: `# project by ${who}\n` } }] };
      if (req.turn === 1 && who === 'bob') return { toolUses: [{ name: 'Write', input: { file_path: path.join(cwd, 'notes.txt'), content: 'notes by bob\n' } }] };
      return { text: `${who} done` };
    }
    if (req.turn === 0) return { toolUses: ['alice', 'bob'].map((name) => ({ name: 'Task', input: { name, description: name, prompt: `[member:${name}] edit` } })) };
    return { text: req.turn === 1 ? 'waiting' : 'both done' };
  });
  t.after(() => server.close());
  const env = { HOME: sb.root, XDG_DATA_HOME: path.join(sb.root, 'data'), XDG_CONFIG_HOME: path.join(sb.root, 'config'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const cli = (...args: string[]) => runCliProcess(args, { env, cwd: sb.repo, timeoutMs: 60_000 });
  const run = await cli('run', 'duo', 'Edit the readme.', '--json', '--permission-mode', 'bypassPermissions');
  assert.equal(run.code, 0, run.stderr);
  const snapshot = JSON.parse((await cli('runs', (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { runId: string }).runId, '--json')).stdout) as RunSnapshot;
  const id = (name: string) => Object.values(snapshot.agents).find((a) => a.member === name)!.agentId;

  const alice = await cli('worktrees', 'apply', id('alice'));
  assert.equal(alice.code, 0, alice.stderr);
  assert.equal(sb.read('README.md'), '# project by alice\n');
  const bob = await cli('worktrees', 'apply', id('bob'));
  assert.equal(bob.code, 1);
  assert.equal(
    bob.stderr,
    "subagents worktrees: bob's changes touch a file another teammate's applied changes hold: README.md (also changed by alice). Applying merges them; where both changed the same lines you get conflict markers to resolve. Nothing was applied; run again with --yes to apply anyway.\n",
  );
  assert.equal(sb.read('notes.txt'), 'notes\n', 'nothing of bob\'s was applied');
  const forced = await cli('worktrees', 'apply', id('bob'), '--yes');
  assert.equal(forced.code, 1, 'a conflict is exit code 1');
  assert.match(sb.read('README.md'), /^<<<<<<< [^\n]*\n# project by alice\n=======\n# project by bob\n>>>>>>> /);
  assert.equal(sb.read('notes.txt'), 'notes by bob\n');
});
