/**
 * The benchmark tree of agent files (bench/discovery.ts, bench/cli.ts):
 * 2,000 files (~6 KB on average, 5% with the invalid YAML real files have)
 * spread over the five families' project dirs, four user dirs and three
 * plugin dirs, generated the same way on every run.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DiscoveryOptions } from '../../src/core/agents/discovery';

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

function agentFile(i: number, random: () => number): string {
  const name = `agent-${String(i).padStart(4, '0')}`;
  const tools = ['Read', 'Grep', 'Glob', 'Bash', 'Edit', 'Write', 'WebFetch'].filter(() => random() < 0.6).join(', ');
  const model = ['sonnet', 'haiku', 'opus', 'inherit'][i % 4];
  const kind = random();
  const description =
    kind < 0.05
      ? // Unquoted ": " inside the value: invalid YAML, as in 5% of real files.
        `description: Use when the user asks about ${name}. Triggers on: 'x', 'y'.`
      : kind < 0.35
        ? `description: >-\n  Use this agent when ${name} work is needed. It reads the code,\n  checks the tests and reports what it found.`
        : `description: "Use this agent when ${name} work is needed: it checks things and reports."`;
  const body = prose(random, 2000 + Math.floor(random() * 8000));
  return `---\nname: ${name}\n${description}\ntools: ${tools || 'Read'}\nmodel: ${model}\ncolor: blue\n---\n\nYou are ${name}.\n\n${body}\n`;
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
  const dirs = [
    ...['.omp', '.claude', '.codex', '.gemini', '.github'].map((family) => path.join(project, family, 'agents')),
    path.join(home, '.omp/agent/agents'),
    ...['.claude', '.codex', '.gemini'].map((family) => path.join(home, family, 'agents')),
    ...plugins.map((plugin) => path.join(plugin, 'agents')),
  ];
  const random = prng(42);
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = dirs[i % dirs.length]!;
    const sub = i % 5 === 0 ? path.join(dir, `team-${i % 3}`) : dir;
    mkdirSync(sub, { recursive: true });
    const filePath = path.join(sub, `agent-${String(i).padStart(4, '0')}.md`);
    const text = agentFile(i, random);
    writeFileSync(filePath, text);
    files.push(filePath);
    bytes += Buffer.byteLength(text);
  }
  return { root, files, bytes, options: { cwd, home, pluginDirs: plugins, loadClaudePlugins: false, bundledDir: null } };
}

