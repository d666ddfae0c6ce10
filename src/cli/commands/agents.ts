import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AgentDefinition, AgentSource, ShadowedDefinition } from '../../core/agents/definition';
import { discoverAgents, type DiscoveryResult } from '../../core/agents/discovery';
import { OutcomeStore } from '../../core/agents/outcomeStore';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { terminalLine } from '../render/terminalText';

/** `subagents agents`: what discovery finds for a folder (SPEC S6.6). */

const USAGE = `Usage: subagents agents [--json] [--cwd DIR] [--plugin-dir DIR]...

Lists the agents discovered for a folder, in precedence order, with the
definitions they shadow and any problems found in agent files.

Options:
  --json            Print one JSON object: { agents, shadowed, warnings, dirs, aliases }
  --cwd DIR         Folder to discover for (default: the current directory)
  --plugin-dir DIR  Extra plugin root whose agents/ folder is searched; repeatable
  --no-cache        Read and parse every file; by default files unchanged since
                    the last listing of the same folder are taken from a cache
                    in $XDG_CACHE_HOME/subagents (default ~/.cache/subagents)
  -h, --help        Show this help`;

const SOURCE_TITLES: Record<AgentSource, string> = {
  project: 'Project',
  user: 'User',
  plugin: 'Plugins',
  bundled: 'Built-in',
};

function agentJson(agent: AgentDefinition) {
  return {
    name: agent.name,
    description: agent.description,
    source: agent.source,
    family: agent.family,
    filePath: agent.filePath,
    tools: agent.tools,
    disallowedTools: agent.disallowedTools,
    model: agent.model,
    spawns: agent.spawns,
    thinkingLevel: agent.thinkingLevel,
    maxTurns: agent.maxTurns,
    permissionMode: agent.permissionMode,
    isolation: agent.isolation,
    background: agent.background,
    blocking: agent.blocking,
    color: agent.color,
    format: agent.format ?? 'claude-code',
    pluginName: agent.pluginName ?? null,
    handoffs: agent.handoffs ?? [],
    target: agent.target ?? null,
    userInvocable: agent.userInvocable ?? true,
    modelInvocable: agent.modelInvocable ?? true,
    argumentHint: agent.argumentHint ?? null,
    nicknames: agent.nicknames ?? [],
    displayName: agent.displayName ?? null,
  };
}

export function agentsJson(result: DiscoveryResult) {
  return {
    agents: result.agents.map((agent) => ({ ...agentJson(agent), shadowed: false })),
    shadowed: result.shadowed.map((s) => ({ ...agentJson(s.definition), shadowed: true, shadowedBy: s.shadowedBy })),
    warnings: result.warnings.map((w) => ({ filePath: w.filePath, message: w.message })),
    dirs: result.dirs.map((d) => ({ path: d.path, source: d.source, family: d.family })),
    aliases: result.aliases,
  };
}

function toolsSummary(tools: readonly string[] | null): string {
  if (tools === null) return 'all';
  if (tools.length === 0) return 'none';
  const shown: string[] = [];
  for (const tool of tools) {
    if ([...shown, tool].join(', ').length > 36) break;
    shown.push(tool);
  }
  const rest = tools.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, +${rest}` : shown.join(', ');
}

function displayPath(filePath: string, cwd: string, home: string): string {
  const fromCwd = path.relative(cwd, filePath);
  if (!fromCwd.startsWith('..') && !path.isAbsolute(fromCwd)) return fromCwd;
  const fromHome = path.relative(home, filePath);
  if (!fromHome.startsWith('..') && !path.isAbsolute(fromHome)) return `~/${fromHome}`;
  return filePath;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col] ?? 0))).join('  ').trimEnd());
}

export function agentsText(result: DiscoveryResult, cwd: string, home: string): string {
  const show = (p: string) => displayPath(p, cwd, home);
  const lines: string[] = [];
  const shadowCount = result.shadowed.length;
  lines.push(`${result.agents.length} agent${result.agents.length === 1 ? '' : 's'}${shadowCount ? ` (${shadowCount} shadowed)` : ''} for ${cwd}`);
  for (const source of Object.keys(SOURCE_TITLES) as AgentSource[]) {
    const winners = result.agents.filter((a) => a.source === source);
    const losers = result.shadowed.filter((s) => s.definition.source === source);
    if (winners.length === 0 && losers.length === 0) continue;
    // Names, models, tools and paths come from files in the repository: no control characters reach the terminal.
    const row = (agent: AgentDefinition, shadow?: ShadowedDefinition) =>
      [agent.name, agent.model ?? 'inherit', toolsSummary(agent.tools), show(agent.filePath) + (shadow ? ` (shadowed by ${show(shadow.shadowedBy.filePath)})` : '')].map(terminalLine);
    lines.push('', `${SOURCE_TITLES[source]}:`);
    const rows = [['NAME', 'MODEL', 'TOOLS', 'FILE'], ...winners.map((a) => row(a)), ...losers.map((s) => row(s.definition, s))];
    lines.push(...table(rows).map((line) => `  ${line}`));
  }
  if (result.warnings.length > 0) {
    lines.push('', `Warnings (${result.warnings.length}):`);
    for (const warning of result.warnings) lines.push(`  ${terminalLine(`${show(warning.filePath)}: ${warning.message}`)}`);
  }
  return `${lines.join('\n')}\n`;
}

function parseFlags(args: string[], io: CliIO) {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        json: { type: 'boolean', default: false },
        cwd: { type: 'string' },
        'plugin-dir': { type: 'string', multiple: true, default: [] },
        'no-cache': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const cwd = path.resolve(io.cwd, values.cwd ?? '.');
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--cwd: "${values.cwd ?? cwd}" is not a directory`);
  return { json: values.json, cwd, pluginDirs: values['plugin-dir'].map((dir) => path.resolve(io.cwd, dir)), cache: !values['no-cache'] };
}

/**
 * The outcome store of one listing (a folder, a home, plugin dirs), or null
 * when it cannot be trusted: only the built CLI stores outcomes, since only
 * its bundle's stamp tells which parser wrote them (run from sources, any
 * edited module would go unnoticed).
 */
function listingStore(cwd: string, home: string, pluginDirs: readonly string[], env: NodeJS.ProcessEnv): OutcomeStore | null {
  if (!__filename.endsWith('.cjs')) return null;
  let version: string;
  try {
    const bundle = statSync(__filename);
    version = `${bundle.size}-${bundle.mtimeMs}`;
  } catch {
    return null;
  }
  const listing = createHash('sha256').update([cwd, home, ...pluginDirs].join('\0')).digest('hex').slice(0, 24);
  const root = env.XDG_CACHE_HOME || path.join(home, '.cache');
  return OutcomeStore.open(path.join(root, 'subagents', 'listings', `${listing}.json`), version);
}

export const agentsCommand: CliCommand = {
  name: 'agents',
  usage: USAGE,
  async run(args, io) {
    const flags = parseFlags(args, io);
    const home = io.env.HOME || io.env.USERPROFILE || os.homedir();
    const store = flags.cache ? listingStore(flags.cwd, home, flags.pluginDirs, io.env) : null;
    const result = await discoverAgents({ cwd: flags.cwd, home, pluginDirs: flags.pluginDirs, ...(store ? { store } : {}) });
    store?.save();
    // Indented for a person at a terminal; compact for a program (a third smaller and faster with thousands of agents).
    io.stdout.write(flags.json ? `${JSON.stringify(agentsJson(result), null, io.stdout.isTTY ? 2 : undefined)}\n` : agentsText(result, flags.cwd, home));
    return 0;
  },
};
