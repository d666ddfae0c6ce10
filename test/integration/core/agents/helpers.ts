import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CliIO } from '../../../../src/cli/command';
import type { AgentDefinition } from '../../../../src/core/agents/definition';
import { LISTED_TOOL_NAMES } from '../../../../src/protocol/tools';
import { runCli } from '../../../../src/cli/main';

/** A fresh temp dir, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'subagents-agents-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function agentText(name: string, fields = '', body = `You are ${name}.`): string {
  return `---\nname: ${name}\ndescription: Agent ${name} for tests.\n${fields}${fields && !fields.endsWith('\n') ? '\n' : ''}---\n${body}\n`;
}

/** Writes a file, creating its folders. Returns its path. */
export function writeFile(filePath: string, content: string | Buffer): string {
  mkdirSync(path.dirname(filePath), { recursive: true });
  writeFileSync(filePath, content);
  return filePath;
}

export function writeAgent(dir: string, relPath: string, name: string, fields = ''): string {
  return writeFile(path.join(dir, relPath), agentText(name, fields));
}

/** A workspace and a home folder side by side, for discovery tests. */
export function layout(t: TestContext): { root: string; home: string; cwd: string } {
  const root = tempDir(t);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work', 'repo');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { root, home, cwd };
}

/** `subagents agents …` run in-process, as from a shell in `cwd` with `home` as HOME. */
export async function agentsCli(args: string[], cwd: string, home: string): Promise<{ code: number; stdout: string; stderr: string }> {
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

/** What `subagents agents --json` prints, as far as tests read it. */
export interface AgentsJson {
  agents: { name: string; description: string; source: string; family: string | null; filePath: string; tools: string[] | null; model: string | null; spawns: unknown; shadowed: boolean; disabled: boolean }[];
  shadowed: { name: string; filePath: string; shadowed: boolean; shadowedBy: { source: string; family: string | null; filePath: string } }[];
  warnings: { filePath: string; message: string }[];
  dirs: { path: string; source: string; family: string | null }[];
  aliases: Record<string, string>;
}

/** How many agents the extension bundles (agents/*.md). */
export const BUNDLED_AGENT_COUNT = readdirSync(path.join(import.meta.dirname, '../../../../agents')).filter((f) => f.endsWith('.md')).length;

/** The listing shows the bundled `explore` agent as it ships: read-only tools, haiku, no spawns. */
export function assertBundledExplore(json: AgentsJson): void {
  const explore = json.agents.find((a) => a.name === 'explore');
  assert.deepEqual(explore && { source: explore.source, family: explore.family, tools: explore.tools, model: explore.model, spawns: explore.spawns }, {
    source: 'bundled',
    family: null,
    tools: ['Read', 'Grep', 'Glob', 'LS'],
    model: 'haiku',
    spawns: [],
  });
}

const CANONICAL: ReadonlySet<string> = new Set(LISTED_TOOL_NAMES);

/** The tools an agent really gets here: the canonical names it lists (unknown ones are only kept for display); null for all. */
export function runtimeTools(definition: Pick<AgentDefinition, 'tools'>): string[] | null {
  return definition.tools?.filter((tool) => CANONICAL.has(tool)) ?? null;
}
