import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

/**
 * The CLI's settings files (src/cli/settingsFiles.ts), through the built CLI:
 * each group of settings reaching where it acts, precedence, the restricted
 * keys of a project file, and malformed files.
 */

let server: ScriptedServer;
const roots: string[] = [];

before(async () => {
  server = await startScriptedServer();
});

after(async () => {
  await server.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A home, config and data folders, and a project with `lead` (spawns), `finder` (haiku) and `looper` (never finishes). */
async function world() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-settings-'));
  roots.push(root);
  const home = path.join(root, 'home');
  const config = path.join(root, 'config');
  const project = path.join(root, 'project');
  const agents = path.join(project, '.claude', 'agents');
  await mkdir(agents, { recursive: true });
  await mkdir(home);
  await writeFile(path.join(agents, 'lead.md'), '---\nname: lead\ndescription: Leads the work\ntools: Task, Read\n---\nYou lead. [agent:lead]\n');
  await writeFile(path.join(agents, 'finder.md'), '---\nname: finder\ndescription: Finds things\ntools: Read\nmodel: haiku\n---\nYou find. [agent:finder]\n');
  await writeFile(path.join(agents, 'looper.md'), '---\nname: looper\ndescription: Reads for ever\ntools: Read\n---\nYou loop. [agent:looper]\n');
  await writeFile(path.join(project, 'notes.txt'), 'the answer is 42\n');
  const write = async (file: string, settings: unknown) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, typeof settings === 'string' ? settings : JSON.stringify(settings, null, 2));
  };
  const userFile = path.join(config, 'subagents', 'settings.json');
  const projectFile = path.join(project, '.subagents', 'settings.json');
  return {
    root,
    project,
    userFile,
    projectFile,
    user: (settings: unknown) => write(userFile, settings),
    projectSettings: (settings: unknown) => write(projectFile, settings),
    env: (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.url,
      HOME: home,
      XDG_CONFIG_HOME: config,
      XDG_DATA_HOME: path.join(root, 'data'),
      XDG_CACHE_HOME: path.join(root, 'cache'),
      ...extra,
    }),
  };
}

type World = Awaited<ReturnType<typeof world>>;

/** The requests one CLI run made (the server is shared; each test's runs are sequential). */
async function run(w: World, args: string[], env = w.env()) {
  const from = server.requests.length;
  const r = await runCliProcess(['run', ...args, '--json', '--cwd', w.project], { env, timeoutMs: 60_000 });
  const result = r.stdout.trim() ? (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>) : null;
  return { ...r, result, requests: server.requests.slice(from) };
}

function scriptAgents() {
  server.setScript((req) => {
    if (req.system.includes('[agent:looper]')) return { toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }] };
    if (req.system.includes('[agent:finder]')) return { text: 'found it' };
    if (req.system.includes('[agent:lead]') && req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'finder', description: 'look', prompt: 'find it' } }] };
    return { text: `lead: ${[...req.toolResults.values()][0]?.content ?? 'nothing'}` };
  });
}

async function agentsJson(w: World, extra: string[] = [], env = w.env()) {
  const r = await runCliProcess(['agents', '--json', '--cwd', w.project, ...extra], { env });
  assert.equal(r.code, 0, r.stderr);
  return { ...r, listing: JSON.parse(r.stdout) as { agents: Array<{ name: string; disabled: boolean }> } };
}

test('modelAliases and defaultModel from the user file reach the API as model ids; unset aliases keep their defaults', async () => {
  const w = await world();
  scriptAgents();
  await w.user('// comments and trailing commas, as in VS Code\n{ "modelAliases": { "sonnet": "claude-remapped-sonnet", "fast": "claude-fast-1", }, "defaultModel": "fast" }\n');
  const r = await run(w, ['lead', 'go']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([...new Set(r.requests.map((q) => `${q.system.match(/\[agent:(\w+)\]/)?.[1]}=${q.model}`))], ['lead=claude-fast-1', 'finder=claude-haiku-5-5']);
  const explicit = await run(w, ['lead', 'go', '--model', 'sonnet']);
  assert.equal(explicit.requests[0]!.model, 'claude-remapped-sonnet');
  assert.equal(r.stderr.includes('warning'), false, r.stderr);
});

test('--model is read as a model field is: dotted ids and display names become API ids; another vendor\'s model is a usage error', async () => {
  const w = await world();
  scriptAgents();
  for (const written of ['claude-sonnet-4.5', 'Claude Sonnet 4.5']) {
    const r = await run(w, ['finder', 'go', '--model', written]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.requests[0]!.model, 'claude-sonnet-4-5', written);
  }
  const newer = await run(w, ['finder', 'go', '--model', 'claude-sonnet-9.9']);
  assert.equal(newer.requests[0]!.model, 'claude-sonnet-5-5');
  assert.match(newer.stderr, /warning: --model: model "claude-sonnet-9\.9" is not a model this runtime knows.*runs on "sonnet"/);
  const foreign = await run(w, ['finder', 'go', '--model', 'gpt-5']);
  assert.equal(foreign.code, 2);
  assert.equal(foreign.requests.length, 0);
  assert.match(foreign.stderr, /--model gpt-5 is OpenAI's, which an Anthropic endpoint does not serve; give an alias \(sonnet, opus, haiku, fable, mythos\)/);
  await w.user({ modelAliases: { 'gpt-5': 'claude-opus-5-5' } });
  assert.equal((await run(w, ['finder', 'go', '--model', 'gpt-5'])).requests[0]!.model, 'claude-opus-5-5', 'unless modelAliases maps it');
});

test('precedence: the --max-turns flag over the project file over the user file (maxTurns bounds the run)', async () => {
  const w = await world();
  scriptAgents();
  await w.user({ maxTurns: 4 });
  let r = await run(w, ['looper', 'go']);
  assert.equal(r.code, 1);
  assert.equal(r.requests.length, 4);
  assert.match(String(r.result?.error), /Stopped after 4 turns/);
  await w.projectSettings({ maxTurns: 2 });
  r = await run(w, ['looper', 'go']);
  assert.equal(r.requests.length, 2);
  r = await run(w, ['looper', 'go', '--max-turns', '3']);
  assert.equal(r.requests.length, 3);
  const bad = await runCliProcess(['run', 'looper', 'go', '--max-depth', '0', '--cwd', w.project], { env: w.env() });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-depth: Too small: expected number to be >=1/);
});

test('budget.maxTokens from the user file stops the tree; --budget-tokens 0 (no budget) overrides it', async () => {
  const w = await world();
  scriptAgents();
  await w.user({ 'budget.maxTokens': 1, maxTurns: 3 });
  const r = await run(w, ['looper', 'go']);
  assert.equal(r.code, 1);
  assert.equal(r.requests.length, 1);
  assert.match(String(r.result?.error), /Token budget reached: \d+ of 1 tokens used/);
  const unbounded = await run(w, ['looper', 'go', '--budget-tokens', '0']);
  assert.equal(unbounded.requests.length, 3);
  assert.match(String(unbounded.result?.error), /Stopped after 3 turns/);
});

test('resume reads the settings of the folder the agent ran in, wherever it is typed', async () => {
  const w = await world();
  scriptAgents();
  const first = await run(w, ['looper', 'go', '--max-turns', '1']);
  assert.equal(first.requests.length, 1);
  await w.projectSettings({ maxTurns: 2 });
  const from = server.requests.length;
  const r = await runCliProcess(['resume', String(first.result?.agentId), 'go on', '--json'], { env: w.env(), cwd: w.root });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(server.requests.length - from, 2);
  assert.match(r.stdout, /Stopped after 3 turns/);
});

test('precedence: ANTHROPIC_BASE_URL over apiBaseUrl in the user file, which reaches the client without it', async () => {
  const w = await world();
  scriptAgents();
  await w.user({ apiBaseUrl: 'http://127.0.0.1:9', 'network.maxRetries': 0 });
  assert.equal((await run(w, ['finder', 'go'])).code, 0, 'the environment wins');
  await w.user({ apiBaseUrl: server.url });
  const { ANTHROPIC_BASE_URL: _, ...noBaseUrl } = w.env();
  const r = await run(w, ['finder', 'go'], noBaseUrl);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests.length, 1);
});

test("precedence: ANTHROPIC_BASE_URL over a trusted project's apiBaseUrl, which applies without it", async () => {
  const w = await world();
  scriptAgents();
  await w.projectSettings({ apiBaseUrl: 'http://127.0.0.1:9', 'network.maxRetries': 0 });
  await w.user({ trustedProjects: [w.project] });
  const r = await run(w, ['finder', 'go']);
  assert.equal(r.code, 0, `the environment wins: ${r.stderr}`);
  assert.equal(r.requests.length, 1);
  const { ANTHROPIC_BASE_URL: _, ...noBaseUrl } = w.env();
  const project = await run(w, ['finder', 'go'], noBaseUrl);
  assert.equal(project.code, 1);
  assert.match(String(project.result?.error), /Could not reach the model API at http:\/\/127\.0\.0\.1:9/);
});

test('--plugin-dir: a relative folder is taken from --cwd for agents, run and resume (the folder the agent ran in), not from the shell', async () => {
  const w = await world();
  scriptAgents();
  const plugin = path.join(w.project, 'plugins', 'p');
  await mkdir(path.join(plugin, 'agents'), { recursive: true });
  await writeFile(path.join(plugin, 'agents', 'helper.md'), '---\nname: helper\ndescription: From a plugin\n---\nYou help. [agent:finder]\n');
  // Typed in the shell's folder (w.root), which has no plugins/ of its own.
  const listing = await runCliProcess(['agents', '--json', '--cwd', w.project, '--plugin-dir', 'plugins/p'], { env: w.env(), cwd: w.root });
  assert.equal(listing.code, 0, listing.stderr);
  const json = JSON.parse(listing.stdout) as { agents: Array<{ name: string; filePath: string }> };
  assert.deepEqual(json.agents.filter((a) => a.name === 'p:helper').map((a) => a.filePath), [path.join(plugin, 'agents', 'helper.md')]);

  const r = await runCliProcess(['run', 'p:helper', 'go', '--json', '--cwd', w.project, '--plugin-dir', 'plugins/p'], { env: w.env(), cwd: w.root });
  assert.equal(r.code, 0, r.stderr);
  const agentId = (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { agentId: string }).agentId;
  const resumed = await runCliProcess(['resume', agentId, 'again', '--json', '--plugin-dir', 'plugins/p'], { env: w.env(), cwd: w.root });
  assert.equal(resumed.code, 0, resumed.stderr);
});

test('--plugin-dir naming no folder is a usage error that names it; a missing pluginDirs entry of the settings is a warning', async () => {
  const w = await world();
  scriptAgents();
  const missing = path.join(w.project, 'plugins', 'typo');
  for (const args of [['agents', '--cwd', w.project], ['run', 'finder', 'go', '--cwd', w.project]]) {
    const r = await runCliProcess([...args, '--plugin-dir', 'plugins/typo'], { env: w.env(), cwd: w.root });
    assert.equal(r.code, 2, args[0]);
    assert.match(r.stderr, new RegExp(`--plugin-dir plugins/typo: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a folder \\(a relative path is taken from the working folder`), args[0]);
  }
  // The user file's relative entries are taken from the working folder too.
  await w.user({ pluginDirs: ['plugins/typo'] });
  const { listing, stderr } = await agentsJson(w);
  assert.equal(stderr, '');
  const warnings = (listing as unknown as { warnings: Array<{ filePath: string; message: string }> }).warnings;
  assert.deepEqual(warnings.map((x) => x.filePath), [missing]);
  assert.match(warnings[0]!.message, /does not exist/);
  const r = await run(w, ['finder', 'go']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /subagents: warning: plugin folder .*plugins\/typo does not exist/);
});

test('disabledAgents: marked in the listing, refused by run, left out of the spawn tool and refused when spawned', async () => {
  const w = await world();
  scriptAgents();
  await w.projectSettings({ disabledAgents: ['finder'] });
  const { listing } = await agentsJson(w);
  assert.deepEqual(listing.agents.filter((a) => a.disabled).map((a) => a.name), ['finder']);
  const text = await runCliProcess(['agents', '--cwd', w.project], { env: w.env() });
  assert.match(text.stdout, /finder \(disabled\)/);
  assert.doesNotMatch(text.stdout, /lead \(disabled\)/);

  const refused = await run(w, ['finder', 'go']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^subagents run: Agent "finder" is disabled \(setting disabledAgents\)\. Remove it from that list to run it\.$/m);
  assert.equal(refused.requests.length, 0);

  const r = await run(w, ['lead', 'go']);
  assert.equal(r.code, 0, r.stderr);
  const task = r.requests[0]!.tools.find((t) => t.name === 'Task')!;
  assert.doesNotMatch(String(task.description), /- finder:/);
  assert.match(String(r.result?.output), /disabled/);
  assert.equal(r.requests.filter((q) => q.system.includes('[agent:finder]')).length, 0);

  // Listed again once the setting changes: the listing cache knows the list is part of the answer.
  await w.projectSettings({ disabledAgents: [] });
  assert.deepEqual((await agentsJson(w)).listing.agents.filter((a) => a.disabled), []);
});

test('history.maxRuns from the user file bounds what "subagents runs" keeps', async () => {
  const w = await world();
  scriptAgents();
  await w.user({ 'history.maxRuns': 1 });
  for (let i = 0; i < 2; i++) assert.equal((await run(w, ['finder', `go ${i}`])).code, 0);
  const r = await runCliProcess(['runs', '--json'], { env: w.env(), cwd: w.project });
  assert.equal(r.code, 0, r.stderr);
  const runs = (JSON.parse(r.stdout) as { runs: Array<{ description: string }> }).runs;
  assert.deepEqual(runs.map((x) => x.description), ['go 1']);
});

test('a project file cannot set the restricted keys unless the user trusts the project', async () => {
  const w = await world();
  scriptAgents();
  const plugin = path.join(w.project, 'plugins', 'p');
  await mkdir(path.join(plugin, 'agents'), { recursive: true });
  await writeFile(path.join(plugin, 'agents', 'sneaky.md'), '---\nname: sneaky\ndescription: From a plugin dir\n---\nHi.\n');
  await w.projectSettings({ apiBaseUrl: 'http://127.0.0.1:9', permissionMode: 'bypassPermissions', pluginDirs: ['plugins/p'], maxTurns: 7, trustedProjects: [w.project] });
  await w.user({ apiBaseUrl: server.url, 'network.maxRetries': 0 });
  const { ANTHROPIC_BASE_URL: _, ...env } = w.env();

  const r = await run(w, ['finder', 'go'], env);
  assert.equal(r.code, 0, r.stderr);
  for (const key of ['apiBaseUrl', 'permissionMode', 'pluginDirs']) {
    assert.match(r.stderr, new RegExp(`warning: ${w.projectFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: "${key}" is ignored: an untrusted project's settings cannot set it for you`));
  }
  assert.match(r.stderr, /project is not a trusted folder, so what its files define is skipped: settings apiBaseUrl, permissionMode, pluginDirs \(.*\.subagents\/settings\.json\)/);
  assert.match(r.stderr, /pass --trust-project for one command, or add ".*project" to "trustedProjects" in .*config\/subagents\/settings\.json/);
  assert.match(r.stderr, /"trustedProjects" is ignored: only the user settings file .* can trust a project/);
  assert.deepEqual((await agentsJson(w, [], env)).listing.agents.some((a) => a.name.endsWith('sneaky')), false);

  // Trusted with the flag, or from the user file: the project's values apply.
  const flagged = await run(w, ['finder', 'go', '--trust-project'], env);
  assert.equal(flagged.code, 1);
  assert.match(String(flagged.result?.error), /Could not reach the model API at http:\/\/127\.0\.0\.1:9/);
  assert.doesNotMatch(flagged.stderr, /"apiBaseUrl" is ignored/);
  assert.ok((await agentsJson(w, ['--trust-project'], env)).listing.agents.some((a) => a.name.endsWith('sneaky')));

  await w.user({ apiBaseUrl: server.url, 'network.maxRetries': 0, trustedProjects: [path.dirname(w.project)] });
  const trusted = await agentsJson(w, [], env);
  assert.ok(trusted.listing.agents.some((a) => a.name.endsWith('sneaky')));
  assert.doesNotMatch(trusted.stderr, /is ignored: an untrusted project's settings|not a trusted folder/);
});

test('malformed files: bad JSON or a non-object stops the command naming the file and place; bad keys are skipped and the rest applies', async () => {
  const w = await world();
  scriptAgents();
  await w.user('{\n  "maxTurns": 2\n  "maxDepth": 2\n}\n');
  let r = await run(w, ['finder', 'go']);
  assert.equal(r.code, 2);
  assert.equal(r.requests.length, 0);
  assert.equal(r.stderr, `subagents run: ${w.userFile}:3:3: CommaExpected. Fix the file (JSON, comments allowed) or remove it; nothing was run.\n`);
  await w.user('["maxTurns", 2]');
  const listing = await runCliProcess(['agents', '--cwd', w.project], { env: w.env() });
  assert.equal(listing.code, 2);
  assert.match(listing.stderr, /settings\.json: must hold one JSON object of settings/);

  await w.user({ maxTurns: 2 });
  await w.projectSettings({ maxTurns: 'lots', maxTurn: 3, 'subagents.maxDepth': 2, disabledAgents: ['lead'] });
  r = await run(w, ['looper', 'go']);
  assert.equal(r.requests.length, 2, "the project's bad maxTurns leaves the user file's");
  assert.match(r.stderr, /settings\.json: "maxTurns" is ignored: Invalid input: expected number, received string \(got "lots"\)/);
  assert.match(r.stderr, /settings\.json: unknown setting "maxTurn" is ignored \(did you mean "maxTurns"\?\)/);
  assert.match(r.stderr, /"subagents\.maxDepth" is ignored: write it without the "subagents\." prefix, as "maxDepth"/);
  assert.equal(r.stderr.match(/unknown setting "maxTurn"/g)?.length, 1, 'each warning once');
  assert.equal((await run(w, ['lead', 'go'])).code, 1, 'the valid keys of the file still apply');
});

test('"subagents --help" and "run --help" say where the settings are', async () => {
  const help = await runCliProcess(['--help']);
  assert.match(help.stdout, /\$XDG_CONFIG_HOME\/subagents\/settings\.json \(default ~\/\.config\/subagents\/settings\.json\)/);
  assert.match(help.stdout, /\.subagents\/settings\.json in the working folder/);
  assert.match(help.stdout, /Precedence: flags > environment \(ANTHROPIC_BASE_URL\) > project file > user file > defaults/);
  assert.match((await runCliProcess(['run', '--help'])).stdout, /--trust-project/);
});

test("an untrusted project's limits and switches can only narrow the user's; wider values are ignored, naming file and key", async () => {
  const w = await world();
  scriptAgents();
  const mark = path.join(w.root, 'user-hook-ran');
  await mkdir(path.join(w.root, 'home', '.claude'), { recursive: true });
  await writeFile(path.join(w.root, 'home', '.claude', 'settings.json'), JSON.stringify({ hooks: { SubagentStart: [{ hooks: [{ type: 'command', command: `touch '${mark}'` }] }] } }));
  await w.user({ 'hooks.enabled': false, 'budget.maxTokens': 1, maxTurns: 3, disabledAgents: ['lead'] });
  await w.projectSettings({ 'hooks.enabled': true, 'budget.maxTokens': 0, maxTurns: 50, disabledAgents: ['finder'] });
  const r = await run(w, ['looper', 'go']);
  assert.equal(r.requests.length, 1, 'the user budget of 1 token still stops the tree after one turn');
  assert.match(String(r.result?.error), /Token budget reached/);
  await assert.rejects(access(mark), { code: 'ENOENT' }, 'hooks stay off');
  const file = w.projectFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(r.stderr, new RegExp(`${file}: "hooks\\.enabled" is ignored: it would turn on what you turned off, and an untrusted project's settings can only narrow yours\\.`));
  assert.match(r.stderr, new RegExp(`${file}: "budget\\.maxTokens" is ignored: 0 \\(no budget\\) is wider than your 1, and an untrusted project's settings can only narrow yours\\.`));
  assert.match(r.stderr, new RegExp(`${file}: "maxTurns" is ignored: 50 is wider than your 3`));
  assert.match(r.stderr, new RegExp(`${file}: "disabledAgents": it cannot take "lead" off your list`));
  assert.match(r.stderr, /project is not a trusted folder, so what its files define is skipped: settings hooks\.enabled, budget\.maxTokens, maxTurns, disabledAgents/);
  assert.deepEqual((await agentsJson(w)).listing.agents.filter((a) => a.disabled).map((a) => a.name).sort(), ['finder', 'lead'], "the project's list adds to the user's");

  // Trusted, the project's values apply as written.
  const trusted = await run(w, ['looper', 'go', '--trust-project']);
  assert.equal(trusted.requests.length, 50);
  assert.equal(await access(mark).then(() => true), true);
});

test("the shared history's retention follows the user file alone: a project's history.maxRuns deletes nothing", async () => {
  const w = await world();
  scriptAgents();
  for (let i = 0; i < 3; i++) assert.equal((await run(w, ['finder', `go ${i}`])).code, 0);
  await w.projectSettings({ 'history.maxRuns': 1, 'history.retentionDays': 1 });
  const r = await run(w, ['finder', 'go 3', '--trust-project']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /"history\.maxRuns" is ignored: the run history is shared by every project, so only your user settings set how much of it is kept/);
  // `resume` opens the history before it knows the agent, from wherever it is typed.
  assert.equal((await runCliProcess(['resume', 'nobody', 'hello', '--json'], { env: w.env(), cwd: w.project })).code, 1);
  const after = await runCliProcess(['runs', '--json'], { env: w.env(), cwd: w.project });
  assert.equal((JSON.parse(after.stdout) as { runs: unknown[] }).runs.length, 4, 'runs and resume typed in the project kept every run');
});
