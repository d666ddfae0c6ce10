import type { TeamMemberSpec } from '../../../protocol/team';
import { builtinTool, LISTED_TOOLS } from '../../../protocol/tools';
import type { AgentDefinition } from '../../agents/definition';
import type { PermissionMode } from '../../tools/permissions';
import { DEFAULT_AGENT, type SpawnInput } from '../tools/spawnTool';
import { computeToolPool } from '../tools/toolPool';
import type { Team } from './team';

/**
 * What a spawn with a `name` becomes: a teammate of the spawner's team. A
 * member the team file declares brings its agent, model, isolation and
 * prompt; any other name is a teammate the lead makes up as it goes. Each
 * refusal is the message the lead reads as a tool error.
 */

export interface TeammatePlan {
  name: string;
  /** What the team file says of it, when it declares it. */
  declared: TeamMemberSpec | undefined;
  /** The agent to run (before the catalog resolves it). */
  agent: string;
  model: string | undefined;
  prompt: string;
  /** Where it works when the team file or the spawn says; undefined: the team's default. */
  isolation: 'worktree' | 'none' | undefined;
}

export function planTeammate(team: Team, input: SpawnInput, limits: { maxTeammates: number; live: number }): TeammatePlan | string {
  const name = (input.name ?? '').trim();
  const refusal = team.refuseName(name);
  if (refusal) return refusal;
  if (limits.live >= limits.maxTeammates) {
    return `This run has ${limits.live} teammates at work or idle, the most it may have (subagents.teams.maxTeammates is ${limits.maxTeammates}). End one with TaskStop, or send the work to an idle one with SendMessage.`;
  }
  const declared = team.declared(name);
  const requested = input.subagent_type?.trim();
  if (declared && requested && requested !== declared.agent) {
    return `"${declared.name}" is declared in the team file as a ${declared.agent} agent; leave subagent_type out, or give "${declared.agent}".`;
  }
  return {
    name: declared?.name ?? name,
    declared,
    agent: declared?.agent ?? (requested || DEFAULT_AGENT),
    // The team file is the user's word: it wins over what the lead asks for.
    model: declared?.model ?? input.model,
    prompt: declared?.prompt ? `${declared.prompt.trim()}\n\n${input.prompt}` : input.prompt,
    isolation: declared?.isolation ?? (input.isolation as 'worktree' | 'none' | undefined),
  };
}

/** Whether an agent could change files as a teammate: its tools (a team's tools added) include a write or a command. */
export function mayEdit(definition: AgentDefinition, mode: PermissionMode, depth: number, maxDepth: number): boolean {
  const pool = computeToolPool({ definition, runtime: LISTED_TOOLS, depth, maxDepth, mode, team: 'member' });
  return pool.tools.some((name) => {
    const kind = builtinTool(name)?.kind;
    return kind === 'write' || kind === 'exec';
  });
}

/**
 * Whether the teammate works in a worktree of its own: always when its
 * agent file says so; as the team file or the spawn says; otherwise (the
 * team's default, `subagents.teams.isolation`) when it may edit and its
 * folder is in a git repository. A string is the refusal.
 */
export async function teammateIsolated(
  plan: TeammatePlan,
  definition: AgentDefinition,
  options: { teamDefault: 'worktree' | 'none'; mayEdit: boolean; cwdGiven: boolean; inRepository: () => Promise<boolean> },
): Promise<boolean | string> {
  if (definition.isolation === 'worktree') {
    if (plan.isolation === 'none') return `Agent "${definition.name}" always runs in a worktree of its own (isolation: worktree in its file), so "${plan.name}" cannot share a folder.`;
    return true;
  }
  if (plan.isolation === 'worktree') return true;
  if (plan.isolation === 'none' || options.cwdGiven) return false;
  return options.teamDefault === 'worktree' && options.mayEdit && (await options.inRepository());
}
