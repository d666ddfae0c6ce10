import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { agentsCli as cli, assertBundledExplore, BUNDLED_AGENT_COUNT as bundledCount, layout, writeAgent, writeFile, type AgentsJson } from '../core/agents/helpers';
import { writeGeneratedAgents } from '../../support/generatedAgents';

// `subagents agents`, run in-process like the CLI's other tests, plus once
// as a real process through the TypeScript entry point and the build.

const repoRoot = path.join(import.meta.dirname, '../../..');

/** A workspace holding the 210 generated agents (every format) in its family folders. */
function generatedProject(t: TestContext) {
  const dirs = layout(t);
  return { ...dirs, generated: writeGeneratedAgents(dirs.cwd) };
}

test('--json over a project of 210 agents in twelve formats: each listed once with its family, the bundled ones, its warnings', async (t) => {
  const { cwd, home, generated } = generatedProject(t);
  const { code, stdout, stderr } = await cli(['--json'], cwd, home);
  assert.equal(code, 0, stderr);
  const json = JSON.parse(stdout) as AgentsJson;
  const project = json.agents.filter((a) => a.source === 'project');
  assert.deepEqual(project.map((a) => [a.name, a.family]), generated.agents.map((a) => [a.expect.name, a.family]));
  assert.equal(json.agents.filter((a) => a.source === 'bundled').length, bundledCount);
  assert.deepEqual(json.shadowed, []);
  // The agents of one file (the .roomodes) share its warnings.
  assert.equal(json.warnings.length, [...new Map(generated.agents.map((a) => [a.path, a.warnings.length])).values()].reduce((n, c) => n + c, 0));
  assert.deepEqual(
    json.dirs.filter((d) => d.source === 'project').map((d) => path.relative(cwd, d.path) || '.'),
    ['.omp/agents', '.cursor/agents', '.claude/agents', '.codex/agents', '.gemini/agents', '.github/agents', '.github/chatmodes', '.opencode/agents', '.kilo/agents', '.', '.qwen/agents', '.kiro/agents', '.factory/droids'],
  );
  assertBundledExplore(json);
});

test('--plugin-dir: the Claude Code ones of the same 210 as a plugin load beside the project copy, each as plugin:agent', async (t) => {
  const { root, cwd, home, generated } = generatedProject(t);
  const plugin = path.join(root, 'plugin');
  // A plugin's agents are Claude Code files in its agents/ folder.
  const claude = generated.agents.filter((a) => a.format === 'claude-code');
  cpSync(path.join(cwd, '.claude/agents'), path.join(plugin, 'agents'), { recursive: true });
  const { code, stdout } = await cli(['--json', '--plugin-dir', plugin], cwd, home);
  assert.equal(code, 0);
  const json = JSON.parse(stdout) as AgentsJson;
  const fromPlugin = json.agents.filter((a) => a.filePath.startsWith(plugin));
  assert.deepEqual(fromPlugin.map((a) => a.name).sort(), claude.map((a) => `plugin:${a.expect.name}`).sort());
  assert.equal(json.agents.length, generated.agents.length + claude.length + bundledCount);
  assert.deepEqual(json.aliases, {}, 'every bare name is also a project agent, so no alias is given');
  const projectWarnings = claude.reduce((n, a) => n + a.warnings.length, 0);
  assert.equal(json.warnings.filter((w) => w.filePath.startsWith(plugin)).length, projectWarnings, 'each plugin copy warns like its project twin');
});

test('the table groups by source, marks shadowed definitions and lists warnings last', async (t) => {
  const { root, cwd, home } = layout(t);
  writeAgent(cwd, '.claude/agents/explore.md', 'explore', 'tools: Read, Grep, Glob, LS, Bash, WebFetch, WebSearch, TodoWrite\nmodel: opus');
  writeAgent(home, '.claude/agents/mine.md', 'mine', 'tools: []');
  writeAgent(path.join(root, 'plug'), 'agents/plugged.md', 'plugged', 'tools: Read, pied-piper');
  writeFile(path.join(cwd, '.claude/agents/broken.md'), '---\nname: broken\n---\n');
  const { code, stdout } = await cli(['--cwd', cwd, '--plugin-dir', path.join(root, 'plug')], root, home);
  assert.equal(code, 0);
  const lines = stdout.split('\n');
  const at = (heading: string) => lines.indexOf(heading);
  assert.ok(at('Project:') < at('User:') && at('User:') < at('Plugins:') && at('Plugins:') < at('Built-in:') && at('Project:') > 0, stdout);
  assert.match(stdout, /^\s+explore\s+opus\s+Read, Grep, Glob, LS, Bash, WebFetch, \+2\s+\.claude\/agents\/explore\.md$/m);
  assert.match(stdout, /^\s+mine\s+inherit\s+none\s+~\/\.claude\/agents\/mine\.md$/m);
  assert.match(stdout, /^\s+general-purpose\s+inherit\s+all\s+/m);
  assert.match(stdout, /explore\.md \(shadowed by \.claude\/agents\/explore\.md\)$/m);
  assert.ok(at(`Warnings (2):`) > at('Built-in:'));
  assert.match(stdout, /^ {2}\.claude\/agents\/broken\.md: skipped broken\.md: it has no "description"/m);
  assert.match(stdout, /plugged\.md: tool "pied-piper" is not available in this runtime/);
});

test('names and warnings from a repository’s files cannot send control sequences to the terminal', async (t) => {
  const { root, cwd, home } = layout(t);
  writeFile(path.join(cwd, '.claude/agents/sly.md'), '---\nname: "sly\\e[2J\\e]0;owned\\a"\ndescription: Clears your screen.\nmodel: "opus\\e[8m"\ntools: "Read, \\e[31mBash"\n---\nHi.\n');
  const { code, stdout } = await cli(['--cwd', cwd], root, home);
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /[\u0000-\u0008\u000b-\u001f\u007f]/, 'a control character reached the terminal');
  assert.match(stdout, /sly␛\[2J␛\]0;owned␇/);
  assert.match(stdout, /opus␛\[8m/);
});

test('bad flags are usage errors (exit 2); --help prints the usage', async (t) => {
  const { cwd, home } = layout(t);
  // (One positional is an agent's name, shown resolved; a second is a usage error.)
  for (const args of [['--bogus'], ['one', 'two'], ['--cwd'], ['--cwd', path.join(cwd, 'missing')]]) {
    const { code, stderr } = await cli(args, cwd, home);
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, /Usage: subagents agents/);
  }
  const help = await cli(['--help'], cwd, home);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--plugin-dir DIR/);
});

for (const [label, entry] of [
  ['the TypeScript entry point', path.join(repoRoot, 'src/cli/main.ts')],
  ['the built CLI (dist/cli.js)', path.join(repoRoot, 'dist/cli.js')],
] as const) {
  const skip = existsSync(entry) ? false : `${entry} is not built (npm test builds it first)`;
  test(`${label} prints one JSON object and exits 0 with warnings present`, { skip }, async (t) => {
    const { cwd, home } = layout(t);
    writeFile(path.join(cwd, '.github/agents/helper.agent.md'), "---\ntools: ['codebase', 'githubRepo']\n---\nHelp.\n");
    // Run from the project folder, so the default --cwd is exercised; tsx is
    // resolved from the repository because the project has no node_modules.
    const tsx = entry.endsWith('.ts') ? ['--import', pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href] : [];
    const loadedFile = path.join(home, 'loaded.txt');
    const tracer = entry.endsWith('.js') ? { NODE_OPTIONS: `--import=${pathToFileURL(path.join(repoRoot, 'test/support/loadedBundles.mjs')).href}`, SUBAGENTS_TEST_LOADED: loadedFile } : {};
    const child = spawnSync(process.execPath, [...tsx, entry, 'agents', '--json'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ...tracer },
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(child.status, 0, child.stderr);
    if (entry.endsWith('.js')) {
      // A listing loads the discovery bundle alone: not run's, not the engine (start-up is most of a listing's time).
      const loaded = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean).map((file) => path.basename(file));
      assert.deepEqual(loaded.sort(), ['cli-agents.cjs', 'cli-main.cjs', 'cli.js']);
    }
    const json = JSON.parse(child.stdout) as AgentsJson;
    const helper = json.agents.find((a) => a.name === 'helper');
    assert.deepEqual(helper && [helper.source, helper.family, helper.description, helper.tools], ['project', '.github', '', ['Read', 'Grep', 'Glob', 'githubRepo']]);
    assert.deepEqual(json.warnings.map((w) => w.message), [`tool "githubRepo" is not available in this runtime (VS Code's GitHub repository search has no counterpart here); it will be ignored`]);
    // The bundled agents are found relative to the entry point.
    assert.equal(json.agents.filter((a) => a.source === 'bundled').length, bundledCount);
    assert.ok(json.agents.filter((a) => a.source === 'bundled').every((a) => a.filePath.startsWith(path.join(repoRoot, 'agents'))));
  });
}

test('a listing answered from its cache loads no more than it needs: one bundle, no zod, no crypto, no streams, no perf_hooks', { skip: existsSync(path.join(repoRoot, 'dist/cli.js')) ? false : 'dist/cli.js is not built (npm test builds it first)' }, (t) => {
  const { cwd, home } = layout(t);
  const loadedFile = path.join(home, 'loaded.txt');
  const run = (traced: boolean) =>
    spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli.js'), 'agents', '--json'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ...(traced ? { NODE_OPTIONS: `--import=${pathToFileURL(path.join(repoRoot, 'test/support/loadedBundles.mjs')).href}`, SUBAGENTS_TEST_LOADED: loadedFile } : {}) },
      encoding: 'utf8',
      timeout: 30000,
    });
  const first = run(false);
  assert.equal(first.status, 0, first.stderr);
  const again = run(true);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout, first.stdout);
  const bundles = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean).map((file) => path.basename(file));
  assert.deepEqual(bundles.sort(), ['cli-agents.cjs', 'cli-main.cjs', 'cli.js']);
  // What each would cost a start (a bare Node start is 30–40 ms): zod's bundle ~15 ms, crypto ~8 ms (with the streams it
  // loads), a pipe's stdout stream ~6 ms, fs/promises ~3 ms, perf_hooks ~2 ms.
  const builtins = readFileSync(`${loadedFile}.builtins`, 'utf8').split('\n').filter(Boolean);
  for (const heavy of ['crypto', 'stream', 'net', 'tty', 'fs/promises', 'perf_hooks']) assert.ok(!builtins.includes(heavy), `${heavy} was loaded: ${builtins.join(', ')}`);
  // The code cache the first run left (src/cli/bundleLoader.ts).
  assert.ok(readdirSync(path.join(home, '.cache', 'subagents', 'code')).some((f) => f.startsWith('cli-agents.cjs.agents.')));
});

test('agents <name>: the resolved definition — the prompt as sent, tools after mapping, rules, model, warnings', async (t) => {
  const { cwd, home } = layout(t);
  writeFile(
    path.join(cwd, '.roomodes'),
    'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: You write docs.\n    whenToUse: For docs.\n    customInstructions: Be brief.\n    groups:\n      - read\n      - - edit\n        - fileRegex: \\.md$\n          description: Markdown only\n    color: teal\n',
  );
  writeFile(path.join(cwd, '.roo/rules-docs/tone.md'), 'Plain words.\n');
  const { code, stdout, stderr } = await cli(['docs'], cwd, home);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^docs\n\nFormat: +Roo Code, project\nFile: +.*\.roomodes\nDisplay name: +Docs\nDescription: +For docs\.\nModel: +claude-sonnet-5-5 — `inherit`: the parent agent/);
  assert.match(stdout, /\nTools: +Task, TaskOutput, TaskStop, SendMessage, Read, Write, Edit, MultiEdit, Glob, Grep, LS, TodoWrite\n/);
  assert.match(stdout, /\nPermission rules \(the last that matches a call decides\):\n {2}deny {2}mode "docs" may only edit files matching \\\.md\$ \(Markdown only\)\n/);
  assert.match(stdout, /\nWarnings \(1\):\n {2}field "docs\.color" has no counterpart here/);
  assert.match(stdout, /Prompt, as sent \(\d+ characters; read from .*rules-docs\/tone\.md\):\n\nYou write docs\.\n\n====\n\nUSER'S CUSTOM INSTRUCTIONS\n\n.*\n\nMode-specific Instructions:\nBe brief\.\nRules:\n\n# Rules from .*tone\.md:\nPlain words\.\n\n<environment>\nWorking directory: /);

  const json = JSON.parse((await cli(['docs', '--json'], cwd, home)).stdout) as { tools: { offered: string[] }; rules: { action: string }[]; prompt: { files: string[] } };
  assert.deepEqual(json.rules.map((r) => r.action), ['deny']);
  assert.equal(json.prompt.files.length, 1);
  assert.ok(!json.tools.offered.includes('Bash'));
});

test('agents <name>: a Kiro prompt file is read in; a name no agent has exits 2 naming the agents there are', async (t) => {
  const { cwd, home } = layout(t);
  writeFile(path.join(cwd, '.kiro/agents/ops.json'), JSON.stringify({ description: 'Ops.', prompt: 'file://./ops.md', tools: ['read', 'shell'], allowedTools: ['read'], model: 'claude-sonnet-4.5' }));
  writeFile(path.join(cwd, '.kiro/agents/ops.md'), 'You run ops carefully.\n');
  const { code, stdout } = await cli(['ops'], cwd, home);
  assert.equal(code, 0);
  assert.match(stdout, /Format: +Kiro, project\n/);
  assert.match(stdout, /Model: +claude-sonnet-4-5 — Model id "claude-sonnet-4-5", sent to the API as written\./);
  assert.match(stdout, /Tools: +Bash, Read, LS\n/);
  assert.match(stdout, / {2}allow allowedTools "read"\n/);
  assert.match(stdout, /Prompt, as sent \(\d+ characters; read from .*\.kiro\/agents\/ops\.md\):\n\nYou run ops carefully\.\n/);
  const missing = await cli(['nobody'], cwd, home);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^subagents agents: Unknown agent "nobody"\. Available: ops, /);
  assert.equal((await cli(['a', 'b'], cwd, home)).code, 2);
});
