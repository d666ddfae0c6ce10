import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CliIO } from '../../../src/cli/command';
import { runCli } from '../../../src/cli/main';
import { layout, writeAgent, writeFile } from './helpers';
import { CORPUS_DIR } from '../../support/corpus';

// `subagents agents` (SPEC S6.6), run in-process like the CLI's other tests,
// plus once as a real process through the TypeScript entry point.

const CORPUS = CORPUS_DIR;
const repoRoot = path.join(import.meta.dirname, '../../..');
const bundledCount = readdirSync(path.join(repoRoot, 'agents')).filter((f) => f.endsWith('.md')).length;

async function cli(args: string[], cwd: string, home: string) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { HOME: home },
    cwd,
    signal: new AbortController().signal,
  };
  const code = await runCli(['agents', ...args], io);
  return { code, stdout, stderr };
}

interface AgentsJson {
  agents: { name: string; description: string; source: string; family: string | null; filePath: string; tools: string[] | null; model: string | null; spawns: unknown; shadowed: boolean }[];
  shadowed: { name: string; filePath: string; shadowed: boolean; shadowedBy: { source: string; family: string | null; filePath: string } }[];
  warnings: { filePath: string; message: string }[];
  dirs: { path: string; source: string }[];
  aliases: Record<string, string>;
}

/** A workspace whose .claude/agents is a copy of the corpus (never a link: nothing may write into it). */
function corpusProject(t: TestContext) {
  const dirs = layout(t);
  cpSync(CORPUS, path.join(dirs.cwd, '.claude/agents'), { recursive: true });
  return dirs;
}

const corpusSkip = existsSync(CORPUS) ? false : `the corpus (${CORPUS}) is not on this machine`;

test('--json over a project holding the corpus: 158 project agents, the bundled ones, 10 warnings', { skip: corpusSkip }, async (t) => {
  const { cwd, home } = corpusProject(t);
  const { code, stdout, stderr } = await cli(['--json'], cwd, home);
  assert.equal(code, 0, stderr);
  const json = JSON.parse(stdout) as AgentsJson;
  const project = json.agents.filter((a) => a.source === 'project');
  assert.equal(project.length, 158);
  assert.ok(project.every((a) => a.family === '.claude' && a.shadowed === false && a.filePath.startsWith(path.join(cwd, '.claude/agents'))));
  assert.equal(json.agents.filter((a) => a.source === 'bundled').length, bundledCount);
  assert.equal(json.agents.length, 158 + bundledCount);
  assert.deepEqual(json.shadowed, []);
  // 8 files are not valid YAML, 2 name tools this runtime does not have (2 more name MCP tools: mcp__server__tool is matched against servers when the agent runs).
  assert.equal(json.warnings.filter((w) => w.message.startsWith('invalid YAML')).length, 8);
  assert.equal(json.warnings.filter((w) => /not available in this runtime/.test(w.message)).length, 2);
  assert.equal(json.warnings.length, 10);
  const explore = json.agents.find((a) => a.name === 'explore');
  assert.deepEqual(explore && { source: explore.source, family: explore.family, tools: explore.tools, model: explore.model, spawns: explore.spawns }, {
    source: 'bundled',
    family: null,
    tools: ['Read', 'Grep', 'Glob', 'LS'],
    model: 'haiku',
    spawns: [],
  });
});

test('--plugin-dir: the same corpus as a plugin loads beside the project copy, as plugin:agent', { skip: corpusSkip }, async (t) => {
  const { root, cwd, home } = corpusProject(t);
  const plugin = path.join(root, 'plugin');
  cpSync(CORPUS, path.join(plugin, 'agents'), { recursive: true });
  const { code, stdout } = await cli(['--json', '--plugin-dir', plugin, '--plugin-dir', path.join(root, 'missing')], cwd, home);
  assert.equal(code, 0);
  const json = JSON.parse(stdout) as AgentsJson;
  assert.equal(json.agents.length, 158 + 158 + bundledCount);
  assert.equal(json.shadowed.length, 0);
  const fromPlugin = json.agents.filter((a) => a.filePath.startsWith(plugin));
  assert.equal(fromPlugin.length, 158);
  // Every plugin agent is `plugin:name`; the project copy keeps the bare name, so no alias is given.
  assert.ok(fromPlugin.every((a) => a.name.startsWith('plugin:') && json.agents.some((p) => p.name === a.name.slice('plugin:'.length) && p.source === 'project')));
  assert.deepEqual(json.aliases, {});
  assert.equal(json.warnings.length, 20, 'each plugin copy warns like its project twin');
  assert.deepEqual(json.dirs.filter((d) => d.source === 'plugin').map((d) => d.path), [path.join(plugin, 'agents'), path.join(root, 'missing', 'agents')]);
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
  for (const args of [['--bogus'], ['extra-positional'], ['--cwd'], ['--cwd', path.join(cwd, 'missing')]]) {
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
    const child = spawnSync(process.execPath, [...tsx, entry, 'agents', '--json'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(child.status, 0, child.stderr);
    const json = JSON.parse(child.stdout) as AgentsJson;
    const helper = json.agents.find((a) => a.name === 'helper');
    assert.deepEqual(helper && [helper.source, helper.family, helper.description, helper.tools], ['project', '.github', '', ['Read', 'Grep', 'Glob', 'githubRepo']]);
    assert.deepEqual(json.warnings.map((w) => w.message), [`tool "githubRepo" is not available in this runtime (VS Code's GitHub repository search has no counterpart here); it will be ignored`]);
    // The bundled agents are found relative to the entry point.
    assert.equal(json.agents.filter((a) => a.source === 'bundled').length, bundledCount);
    assert.ok(json.agents.filter((a) => a.source === 'bundled').every((a) => a.filePath.startsWith(path.join(repoRoot, 'agents'))));
  });
}
