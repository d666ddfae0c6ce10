import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AgentDefinition, AgentSource, ShadowedDefinition } from '../../core/agents/definition';
import { discoverAgents, discoverListed, listAgentDirs, type DiscoveryResult } from '../../core/agents/catalog/discovery';
import { findAgent, UnknownAgentError } from '../../core/agents/catalog/lookup';
import type { Settings } from '../../core/config';
import { resolveDefinition, resolvedText } from '../../surfaces/resolvedDefinition';
import { UsageError, userHome, type CliCommand, type CliIO } from '../command';
import { ListingCache } from '../listingCache';
import { pluginDirFlags } from '../pluginDirFlags';
import { cliSettings } from '../settingsFiles';
import { decideProjectTrust } from '../trust';
import { terminalLine } from '../render/terminalText';
import { mcpServersText } from '../render/mcpServers';
import { listAgentServers, type AgentServers } from '../../core/mcp/listing';
import { mcpLimits } from '../../core/mcp/limits';
import { cliMcpOptions, mcpListingStamp } from '../mcpOptions';
import { Redactor } from '../../core/redaction';
import { openTeams, teamShownJson, teamShownText, teamsJson, teamsText } from '../teams';
import { teamNameOf } from '../../core/agents/teams/teamFile';
import { namingTeams } from '../../protocol/admission';

/** `subagents agents`: what discovery finds for a folder. */

const USAGE = `Usage: subagents agents [<name>] [--json] [--cwd DIR] [--plugin-dir DIR]… [--trust-project] [--no-cache]

Lists the agents discovered for a folder, in precedence order, with the
definitions they shadow and any problems found in agent files. Agents named
in the disabledAgents setting are marked (disabled); "subagents run" refuses
them and no agent can spawn them. Then the teams: .subagents/teams/*.md of
the project and of your config folder ($XDG_CONFIG_HOME/subagents/teams),
the project's winning by name; "subagents run <team> <goal>" runs one.

With a name, shows what that agent gets when it runs, without running it:
the prompt as sent (the files its format reads in, put in), its tools after
its format's names are mapped and its mode applied, its permission rules,
its model, and every warning about its file. A name that is no agent but a
team shows the team: its lead, members, isolation, tasks and brief.

Options:
  --json            Print one JSON object: { agents, shadowed, warnings, dirs,
                    aliases, teams, teamProblems }; each entry has a "kind":
                    "agent" or "team". With a name, the resolved definition
                    (or the team, "kind": "team")
  --cwd DIR         Folder to discover for (default: the current directory)
  --plugin-dir DIR  Extra plugin root whose agents/ folder is searched; repeatable
                    (added to the pluginDirs setting); a relative DIR is taken
                    from the --cwd folder
  --trust-project   Trust the project for this listing: its
                    .subagents/settings.json applies in full (pluginDirs,
                    loadClaudePlugins, …) and --check-mcp may start the MCP
                    servers its files declare; "trustedProjects" in your user
                    settings file trusts it for good
  --check-mcp       Start every MCP server the agents would get (as a run would:
                    trusted folders only), record whether it answers and what
                    it offers, and stop it; the listing shows what was found
  --no-cache        Read and parse every file. By default a listing whose
                    files all kept their size and time since the last listing
                    of the same folder prints the same answer again, and
                    otherwise only the changed files are parsed; the cache is
                    in $XDG_CACHE_HOME/subagents (default ~/.cache/subagents)
  -h, --help        Show this help`;

const SOURCE_TITLES: Record<AgentSource, string> = {
  project: 'Project',
  user: 'User',
  plugin: 'Plugins',
  bundled: 'Built-in',
};

function agentJson(agent: AgentDefinition, disabled: ReadonlySet<string>, servers?: AgentServers) {
  return {
    kind: 'agent' as const,
    name: agent.name,
    disabled: disabled.has(agent.name),
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
    mcpServers: servers?.servers ?? [],
    mcpProblems: servers?.problems ?? [],
  };
}

export function agentsJson(result: DiscoveryResult, disabled: ReadonlySet<string> = new Set(), servers: ReadonlyMap<string, AgentServers> = new Map()) {
  return {
    agents: result.agents.map((agent) => ({ ...agentJson(agent, disabled, servers.get(agent.name)), shadowed: false })),
    shadowed: result.shadowed.map((s) => ({ ...agentJson(s.definition, disabled), shadowed: true, shadowedBy: s.shadowedBy })),
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

export function agentsText(result: DiscoveryResult, cwd: string, home: string, disabled: ReadonlySet<string> = new Set(), servers: ReadonlyMap<string, AgentServers> = new Map()): string {
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
      [agent.name + (!shadow && disabled.has(agent.name) ? ' (disabled)' : ''), agent.model ?? 'inherit', toolsSummary(agent.tools), show(agent.filePath) + (shadow ? ` (shadowed by ${show(shadow.shadowedBy.filePath)})` : '')].map(terminalLine);
    lines.push('', `${SOURCE_TITLES[source]}:`);
    const rows = [['NAME', 'MODEL', 'TOOLS', 'FILE'], ...winners.map((a) => row(a)), ...losers.map((s) => row(s.definition, s))];
    lines.push(...table(rows).map((line) => `  ${line}`));
  }
  lines.push(...mcpServersText(servers));
  if (result.warnings.length > 0) {
    lines.push('', `Warnings (${result.warnings.length}):`);
    for (const warning of result.warnings) lines.push(`  ${terminalLine(`${show(warning.filePath)}: ${warning.message}`)}`);
  }
  return `${lines.join('\n')}\n`;
}

function parseFlags(args: string[], io: CliIO) {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: {
        json: { type: 'boolean', default: false },
        cwd: { type: 'string' },
        'plugin-dir': { type: 'string', multiple: true, default: [] },
        'no-cache': { type: 'boolean', default: false },
        'trust-project': { type: 'boolean', default: false },
        'check-mcp': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (positionals.length > 1) throw new UsageError(`one agent name at most, not ${positionals.length} (${positionals.join(' ')})`);
  const cwd = path.resolve(io.cwd, values.cwd ?? '.');
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--cwd: "${values.cwd ?? cwd}" is not a directory`);
  return {
    name: positionals[0] ?? null,
    json: values.json,
    cwd,
    pluginDirs: pluginDirFlags(values['plugin-dir'], cwd, userHome(io.env)),
    cache: !values['no-cache'],
    trustProject: values['trust-project'],
    checkMcp: values['check-mcp'],
  };
}

/**
 * `subagents agents <name>`: one agent as it would run, or the team of that
 * name when no agent has it. Read without the listing's cache, which keeps no
 * prompts; exit code 2 for a name neither an agent nor a team has.
 */
async function showResolved(
  name: string,
  options: { cwd: string; home: string; pluginDirs: string[]; loadClaudePlugins: boolean; json: boolean; settings: Settings; trusted: (folder: string) => boolean },
  io: CliIO,
): Promise<number> {
  const result = await discoverAgents(options);
  const definition = findAgent(result.agents, name, result.aliases);
  const teams = await openTeams(io, options.cwd);
  const team = teams.find(name);
  if (!definition) {
    // As "subagents run" reads a name: no agent by it, then a team.
    if (team) {
      io.stdout.write(options.json ? `${JSON.stringify(teamShownJson(team, teams), null, io.stdout.isTTY ? 2 : undefined)}\n` : teamShownText(team, teams));
      return 0;
    }
    const refusal = namingTeams({ code: 'unknown', message: new UnknownAgentError(name, result.agents.map((a) => a.name)).message }, teams.teams.map((t) => t.name));
    const broken = teams.problems.find((p) => p.severity === 'error' && teamNameOf(p.filePath) === name);
    io.stderr.write(`subagents agents: ${terminalLine(broken ? `The team file ${broken.filePath} could not be read: ${broken.message}` : refusal.message)}\n`);
    return 2;
  }
  if (team) io.stderr.write(`subagents agents: warning: "${terminalLine(name)}" is an agent and a team (${terminalLine(team.filePath)}); showing the agent, which is what runs.\n`);
  const resolved = await resolveDefinition(definition, { settings: options.settings, cwd: options.cwd, trusted: options.trusted, warnings: result.warnings, shadowed: result.shadowed, home: options.home, env: io.env });
  // Names, prompts and paths come from files in the repository: a terminal gets no control characters from them.
  io.stdout.write(options.json ? `${JSON.stringify(resolved, null, io.stdout.isTTY ? 2 : undefined)}\n` : resolvedText(resolved).split('\n').map(terminalLine).join('\n'));
  return 0;
}

export const agentsCommand: CliCommand = {
  name: 'agents',
  usage: USAGE,
  async run(args, io) {
    const flags = parseFlags(args, io);
    const home = userHome(io.env);
    // Listing runs no project code: only the project settings file's trust matters, and nothing is asked.
    const trust = await decideProjectTrust(io, flags.cwd, { flag: flags.trustProject, interactive: false, probes: [] });
    const settings = cliSettings(io, flags.cwd, { trust });
    const disabled = new Set(settings.disabledAgents);
    const options = { cwd: flags.cwd, home, pluginDirs: [...settings.pluginDirs, ...flags.pluginDirs], loadClaudePlugins: settings.loadClaudePlugins };
    if (flags.name !== null) return showResolved(flags.name, { ...options, json: flags.json, settings, trusted: (folder: string) => trust.isTrusted(folder) }, io);
    const listing = await listAgentDirs(options);
    // Indented for a person at a terminal; compact for a program (a third smaller and faster with thousands of agents).
    const format = flags.json ? (io.stdout.isTTY ? 'json-indented' : 'json') : 'text';
    const cache = flags.cache && !flags.checkMcp ? ListingCache.open(flags.cwd, home, options.pluginDirs, io.env) : null;
    // The disabled marks, the folder's trust and the MCP files and statuses are part of the answer (not of any file's outcome).
    // The team files are few and small: read every time, and part of the answer's fingerprint.
    const teams = await openTeams(io, flags.cwd);
    const fingerprint = cache?.fingerprint(listing, JSON.stringify([settings.disabledAgents, trust.isTrusted(flags.cwd), settings['mcp.inheritClaudeCodeServers'], mcpListingStamp(io, flags.cwd), teamsJson(teams)]));
    const known = fingerprint ? cache!.answer(format, fingerprint) : null;
    if (known !== null) {
      io.stdout.write(known);
      return 0;
    }
    const result = await discoverListed(listing, { ...options, ...(cache ? { store: cache.store } : {}) });
    cache?.store.save();
    const mcpOptions = cliMcpOptions(io, { cwd: flags.cwd, settings, pluginDirs: flags.pluginDirs, trust, ownSecrets: () => [io.env.ANTHROPIC_API_KEY, io.env.ANTHROPIC_AUTH_TOKEN] });
    if (flags.checkMcp) {
      const { checkAgentServers } = await import('../engineCommands');
      // What it finds is in the listing below: each server reachable or failed, with the reason.
      await checkAgentServers(result.agents, flags.cwd, mcpOptions);
    }
    const statuses = mcpOptions.status?.read() ?? {};
    const servers = await listAgentServers(result.agents, {
      locations: { cwd: flags.cwd, home, vscodeWorkspace: true, plugins: await mcpOptions.plugins!() },
      trust,
      statuses,
      editorSets: null,
      inheritClaudeSession: mcpLimits(settings).inheritClaudeSession,
    });
    // A server's recorded failure quotes its stderr: the key never shows, whatever wrote the record.
    const redactor = new Redactor(() => [io.env.ANTHROPIC_API_KEY, io.env.ANTHROPIC_AUTH_TOKEN]);
    const answer = redactor.text(
      format === 'text'
        ? `${agentsText(result, flags.cwd, home, disabled, servers)}${teamsText(teams, (p) => displayPath(p, flags.cwd, home)).map((l) => `${l}\n`).join('')}`
        : `${JSON.stringify({ ...agentsJson(result, disabled, servers), ...teamsJson(teams) }, null, format === 'json-indented' ? 2 : undefined)}\n`,
    );
    if (fingerprint) cache!.saveAnswer(format, fingerprint, answer);
    io.stdout.write(answer);
    return 0;
  },
};
