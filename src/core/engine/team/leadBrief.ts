import type { RunTeam } from '../../../protocol/team';
import type { TeamDefinition } from '../../agents/teams/teamFile';
import type { TeamStartTask } from './team';

/**
 * What the lead of a team file's run is told first: the file's body (its
 * brief), who is on the team and how a team works here, the tasks the file
 * starts with, then the user's goal. Said once, at the start of the lead's
 * conversation, so it is cached with the rest of the prefix.
 */

export interface TeamStart {
  info: RunTeam;
  /** The team file's body. */
  brief: string;
  /** The tasks the file starts the list with, in order. */
  tasks: readonly TeamStartTask[];
}

/** A team file as a run starts it: where members work defaults to `defaultIsolation` (the `teams.isolation` setting). */
export function teamStartOf(team: TeamDefinition, defaultIsolation: 'worktree' | 'none'): TeamStart {
  return {
    info: { name: team.name, description: team.description, filePath: team.filePath, lead: team.lead, members: team.members, isolation: team.isolation ?? defaultIsolation },
    brief: team.body,
    tasks: team.tasks,
  };
}

export function leadPrompt(team: TeamStart, goal: string): string {
  const { info } = team;
  const roster = info.members.map((m) => {
    const where = m.isolation ?? info.isolation;
    const extras = [m.model ? `model ${m.model}` : null, where === 'none' ? 'works in your folder' : 'a worktree of its own when it may edit'].filter(Boolean);
    return `- ${m.name}: a ${m.agent} agent (${extras.join(', ')})${m.prompt ? ` — ${firstLine(m.prompt)}` : ''}`;
  });
  const tasks = team.tasks.map((t, i) => `- #${i + 1} ${t.subject}${t.blockedBy?.length ? ` (blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')})` : ''}`);
  return [
    team.brief.trim(),
    [
      `You lead the team "${info.name}"${info.description ? `: ${info.description}` : ''}.`,
      roster.length
        ? `Its members, each started by you with the Task tool and its name (the team file sets each one's agent, model and folder; give it the task in prompt):\n${roster.join('\n')}`
        : 'It declares no members: start teammates with the Task tool and a name of your choosing.',
      'Plan the work as tasks on the shared task list (TaskCreate; blockedBy for order) and let teammates claim them (TaskUpdate). A teammate whose turn ends goes idle and you are told what it said; SendMessage to its name wakes it with a message. When the work is done, check TaskList and finish: your teammates end with you.',
      ...(tasks.length ? [`The task list starts with:\n${tasks.join('\n')}`] : []),
    ].join('\n\n'),
    `The goal:\n${goal.trim()}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
