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

/** The problems and shadowed files that concern one team. */
function aboutTeam(team: TeamDefinition, catalog: TeamCatalog) {
  return {
    problems: catalog.problems.filter((p) => p.filePath === team.filePath),
    shadows: catalog.shadowed.filter((s) => s.by.filePath === team.filePath).map((s) => s.team.filePath),
  };
}

/** `subagents agents <team> --json`: the team as it would run, brief included. */
export function teamShownJson(team: TeamDefinition, catalog: TeamCatalog) {
  const { problems, shadows } = aboutTeam(team, catalog);
  return { ...teamJson(team), brief: team.body, shadows, problems: problems.map((p) => ({ severity: p.severity, message: p.message })) };
}

/** `subagents agents <team>`: what the lead gets besides the goal, and whom it may spawn by name. */
export function teamShownText(team: TeamDefinition, catalog: TeamCatalog): string {
  const { problems, shadows } = aboutTeam(team, catalog);
  const lines = [
    `${team.name} (team)`,
    '',
    `Description: ${team.description || '(none)'}`,
    `File:        ${team.filePath} (${team.source})`,
    `Lead:        ${team.lead}`,
    `Isolation:   ${team.isolation ?? 'the teams.isolation setting'}`,
    '',
    `Members (${team.members.length}):`,
  ];
  for (const m of team.members) {
    const extras = [m.model ? `model ${m.model}` : null, m.isolation ? `isolation ${m.isolation}` : null].filter(Boolean).join(', ');
    lines.push(`  ${m.name}  agent ${m.agent}${extras ? `; ${extras}` : ''}`);
    if (m.prompt) lines.push(`    ${m.prompt.replace(/\s+/g, ' ')}`);
  }
  if (team.tasks.length) {
    lines.push('', `Initial tasks (${team.tasks.length}):`);
    team.tasks.forEach((t, i) => lines.push(`  ${i + 1}. ${t.subject}${t.blockedBy?.length ? `  (blocked by ${t.blockedBy.join(', ')})` : ''}`));
  }
  if (shadows.length) {
    lines.push('', `Other files of "${team.name}" (shadowed):`);
    for (const s of shadows) lines.push(`  ${s}`);
  }
  if (problems.length) {
    lines.push('', `Problems (${problems.length}):`);
    for (const p of problems) lines.push(`  ${p.severity}: ${p.message}`);
  }
  lines.push('', "The lead's brief (given with the goal and the roster):", '', ...team.body.trim().split('\n'), '');
  // Every part comes from a file in the repository: a terminal gets no control characters from it.
  return lines.map(terminalLine).join('\n');
}
