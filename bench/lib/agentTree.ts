/**
 * The benchmark tree of agent files (bench/discovery.ts, bench/cli.ts,
 * bench/languageServer.ts): 2,000 files (~6 KB on average, 5% with the
 * invalid YAML real files have) in all twelve formats, spread over every
 * family's project dir, nine user dirs, three plugin dirs and the files that
 * hold several agents (a `.roomodes`, an `opencode.json`), generated the
 * same way on every run.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DiscoveryOptions } from '../../src/core/agents/catalog/discovery';

export const FILES = 2000;

/** Deterministic pseudo-random numbers, so every run generates the same tree. */
function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

const WORDS = (
  'agent review code file test build error change module function type value request response cache path ' +
  'check report issue plan step read write search result output input config setting user project tool model ' +
  'focus carefully explain before after every never always should must when which because only each'
).split(' ');

function prose(random: () => number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const words = Array.from({ length: 8 + Math.floor(random() * 12) }, () => WORDS[Math.floor(random() * WORDS.length)]);
    const line = random() < 0.1 ? `\n## ${words.slice(0, 3).join(' ')}\n` : `- ${words.join(' ')}.`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** What a file of each kind of dir looks like: the tools line and the keys differ per format. */
type FileKind = 'claude' | 'cursor' | 'opencode' | 'qwen' | 'kiro' | 'factory';

const TOOL_NAMES: Record<Exclude<FileKind, 'kiro' | 'opencode' | 'cursor'>, string[]> = {
  claude: ['Read', 'Grep', 'Glob', 'Bash', 'Edit', 'Write', 'WebFetch'],
  qwen: ['read_file', 'grep_search', 'glob', 'run_shell_command', 'edit', 'write_file', 'web_fetch'],
  factory: ['Read', 'Grep', 'Glob', 'Execute', 'Edit', 'Create', 'FetchUrl'],
};

function agentFile(i: number, random: () => number, kind: FileKind): string {
  const name = `agent-${String(i).padStart(4, '0')}`;
  const model = ['sonnet', 'haiku', 'opus', 'inherit'][i % 4];
  const shape = random();
  const description =
    shape < 0.05
      ? // Unquoted ": " inside the value: invalid YAML, as in 5% of real files.
        `description: Use when the user asks about ${name}. Triggers on: 'x', 'y'.`
      : shape < 0.35
        ? `description: >-\n  Use this agent when ${name} work is needed. It reads the code,\n  checks the tests and reports what it found.`
        : `description: "Use this agent when ${name} work is needed: it checks things and reports."`;
  const body = prose(random, 2000 + Math.floor(random() * 8000));
  if (kind === 'kiro') {
    return `${JSON.stringify({ name, description: `Use this agent when ${name} work is needed.`, prompt: `You are ${name}.\n\n${body}`, tools: ['read', 'grep', 'shell'], allowedTools: ['read'], model: 'claude-sonnet-4.5' }, null, 2)}\n`;
  }
  const pick = (names: string[]) => names.filter(() => random() < 0.6).join(', ') || names[0];
  const fields =
    kind === 'cursor'
      ? [`name: ${name}`, description, `model: ${['fast', 'inherit'][i % 2]}`, i % 3 === 0 ? 'readonly: true' : '']
      : kind === 'opencode'
        ? [description, 'mode: subagent', `model: anthropic/claude-${['sonnet', 'haiku'][i % 2]}-4-5`, 'tools:', '  write: false', 'permission:', '  bash:', '    "git *": allow', '    "*": ask']
        : [`name: ${name}`, description, `tools: ${pick(TOOL_NAMES[kind])}`, `model: ${kind === 'qwen' ? 'inherit' : model}`, kind === 'claude' ? 'color: blue' : ''];
  return `---\n${fields.filter(Boolean).join('\n')}\n---\n\nYou are ${name}.\n\n${body}\n`;
}

/** A file of several agents: a Roo Code modes file, or an opencode config's `agent` key. */
function manyAgentsFile(first: number, count: number, random: () => number, kind: 'roomodes' | 'opencode-json'): string {
  const names = Array.from({ length: count }, (_, k) => `agent-${String(first + k).padStart(4, '0')}`);
  if (kind === 'opencode-json') {
    return `${JSON.stringify({ agent: Object.fromEntries(names.map((name) => [name, { description: `Use this agent when ${name} work is needed.`, prompt: prose(random, 1500), tools: { bash: false } }])) }, null, 2)}\n`;
  }
  const modes = names.map((name) => `  - slug: ${name}\n    name: ${name}\n    roleDefinition: >-\n      ${prose(random, 1500).replace(/\n+/g, ' ')}\n    whenToUse: Use for ${name} work.\n    groups: [read, edit, command]\n`);
  return `customModes:\n${modes.join('')}`;
}

export interface Tree {
  root: string;
  options: DiscoveryOptions;
  files: string[];
  bytes: number;
}

export function generate(): Tree {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-discovery-'));
  const home = path.join(root, 'home');
  const project = path.join(root, 'repo');
  const cwd = path.join(project, 'packages', 'app');
  mkdirSync(cwd, { recursive: true });
  const plugins = [0, 1, 2].map((i) => path.join(root, 'plugins', `plugin-${i}`));
  // Each dir, its format's kind of file, and whether its home tool reads subfolders.
  const dirs: { dir: string; kind: FileKind; nested: boolean; ext?: string }[] = [
    ...['.omp', '.claude', '.codex', '.gemini', '.github'].map((family) => ({ dir: path.join(project, family, 'agents'), kind: 'claude' as const, nested: true })),
    { dir: path.join(project, '.cursor/agents'), kind: 'cursor', nested: true },
    { dir: path.join(project, '.opencode/agents'), kind: 'opencode', nested: true },
    { dir: path.join(project, '.kilo/agents'), kind: 'opencode', nested: true },
    { dir: path.join(project, '.qwen/agents'), kind: 'qwen', nested: false },
    { dir: path.join(project, '.kiro/agents'), kind: 'kiro', nested: false, ext: '.json' },
    { dir: path.join(project, '.factory/droids'), kind: 'factory', nested: false },
    { dir: path.join(home, '.omp/agent/agents'), kind: 'claude', nested: true },
    ...['.claude', '.codex', '.gemini'].map((family) => ({ dir: path.join(home, family, 'agents'), kind: 'claude' as const, nested: true })),
    { dir: path.join(home, '.cursor/agents'), kind: 'cursor', nested: true },
    { dir: path.join(home, '.config/opencode/agents'), kind: 'opencode', nested: true },
    { dir: path.join(home, '.qwen/agents'), kind: 'qwen', nested: false },
    { dir: path.join(home, '.factory/droids'), kind: 'factory', nested: false },
    ...plugins.map((plugin) => ({ dir: path.join(plugin, 'agents'), kind: 'claude' as const, nested: true })),
  ];
  const random = prng(42);
  const files: string[] = [];
  let bytes = 0;
  const write = (filePath: string, text: string) => {
    mkdirSync(path.dirname(filePath), { recursive: true });
    writeFileSync(filePath, text);
    files.push(filePath);
    bytes += Buffer.byteLength(text);
  };
  // Two files of several agents each, named after the agents they hold; Roo Code reads `.roomodes` only in the workspace folder itself.
  write(path.join(cwd, '.roomodes'), manyAgentsFile(FILES, 20, random, 'roomodes'));
  write(path.join(project, 'opencode.json'), manyAgentsFile(FILES + 20, 20, random, 'opencode-json'));
  for (let i = 0; files.length < FILES; i++) {
    const { dir, kind, nested, ext } = dirs[i % dirs.length]!;
    const sub = nested && i % 5 === 0 ? path.join(dir, `team-${i % 3}`) : dir;
    write(path.join(sub, `agent-${String(i).padStart(4, '0')}${ext ?? '.md'}`), agentFile(i, random, kind));
  }
  // A git repository, which opencode and Kilo look for their folders up to.
  mkdirSync(path.join(project, '.git'), { recursive: true });
  return { root, files, bytes, options: { cwd, home, pluginDirs: plugins, loadClaudePlugins: false, bundledDir: null } };
}

