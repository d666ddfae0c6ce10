import type { AgentRuntime, RunHandle, StartRequest } from '../core/runtime/api';
import { teamNameOf } from '../core/agents/teams/teamFile';
import { AdmissionError } from '../core/engine/tree/admission';
import { EngineError } from '../core/engine/errors';
import { teamStartOf } from '../core/engine/team/leadBrief';
import { namingTeams } from '../protocol/admission';
import type { CliIO } from './command';
import { terminalText } from './render/terminalText';
import { openTeams } from './teams';

/**
 * Starts `opts.agent`; a name that is no agent but a team runs the team (its
 * lead, with the team file), asked of the runtime that runs it, local or the
 * agent host. An agent wins over a team of its name, with a warning. A team
 * file that could not be read says why; an unknown name lists the teams too.
 * Used where the runtime runs (the host's client, or the engine bundle run
 * in process), so the errors it matches are that bundle's own classes.
 */
export async function startAgentOrTeam(io: CliIO, runtime: Pick<AgentRuntime, 'start'>, request: StartRequest, cwd: string, defaultIsolation: 'worktree' | 'none'): Promise<RunHandle> {
  const teams = await openTeams(io, cwd);
  const team = teams.find(request.agent);
  try {
    const handle = await runtime.start(request);
    if (team) io.stderr.write(`subagents: warning: "${terminalText(request.agent)}" is an agent and a team (${terminalText(team.filePath)}); running the agent. Rename the team to run it.\n`);
    return handle;
  } catch (error) {
    if (!(error instanceof AdmissionError) || error.refusal.code !== 'unknown') throw error;
    if (team) {
      const start = teamStartOf(team, defaultIsolation);
      return runtime.start({ ...request, agent: start.info.lead, team: start });
    }
    const broken = teams.problems.find((p) => p.severity === 'error' && teamNameOf(p.filePath) === request.agent);
    if (broken) throw new EngineError(`The team file ${broken.filePath} could not be read: ${broken.message}`);
    throw new AdmissionError(namingTeams(error.refusal, teams.teams.map((t) => t.name)));
  }
}
