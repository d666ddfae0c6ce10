import { TeamCatalog } from '../core/agents/teams/teamCatalog';
import type { TeamDefinition } from '../core/agents/teams/teamFile';
import { userHome, type CliIO } from './command';
import { terminalLine } from './render/terminalText';

/**
 * Team files as the CLI sees them: read once per command (the CLI does not
 * live long enough to need watching), listed by `subagents agents` beside
 * the agents and run by name with `subagents run <team> <goal>`.
 */

export function openTeams(io: CliIO, cwd: string): Promise<TeamCatalog> {
  return TeamCatalog.create({ cwd, home: userHome(io.env), env: io.env });
}

function teamJson(team: TeamDefinition) {
  return {
    kind: 'team' as const,
    name: team.name,
    description: team.description,
    source: team.source,
    filePath: team.filePath,
    lead: team.lead,
    members: team.members,
    isolation: team.isolation,
    tasks: team.tasks,
  };
}

/** The teams part of `subagents agents --json`: each entry says it is a team (`kind: "team"`). */
export function teamsJson(catalog: TeamCatalog) {
  return {
    teams: [...catalog.teams.map((t) => ({ ...teamJson(t), shadowed: false })), ...catalog.shadowed.map((s) => ({ ...teamJson(s.team), shadowed: true, shadowedBy: s.by.filePath }))],
    teamProblems: catalog.problems.map((p) => ({ filePath: p.filePath, severity: p.severity, message: p.message })),
  };
}

/** The teams part of `subagents agents`, under the agents. */
export function teamsText(catalog: TeamCatalog, show: (filePath: string) => string): string[] {
  if (catalog.teams.length === 0 && catalog.problems.length === 0) return [];
  const lines = ['', `Teams (${catalog.teams.length}):`];
  for (const team of catalog.teams) {
    const members = team.members.map((m) => `${m.name} (${m.agent})`).join(', ') || 'none declared';
    lines.push(`  ${terminalLine(`${team.name}  lead ${team.lead}; members ${members}  ${show(team.filePath)}`)}`);
  }
  for (const s of catalog.shadowed) lines.push(`  ${terminalLine(`${s.team.name}  ${show(s.team.filePath)} (shadowed by ${show(s.by.filePath)})`)}`);
  for (const p of catalog.problems) lines.push(`  ${terminalLine(`${show(p.filePath)}: ${p.severity}: ${p.message}`)}`);
  return lines;
}
