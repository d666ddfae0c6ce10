import type { Usage, WorktreeInfo } from '../../protocol/runEvents';
import { agentOf, type AgentNode, type RunSnapshot } from '../../protocol/runSnapshot';
import type { RosterState } from '../../protocol/statusDisplay';
import { openBlockers, TEAM_TASK_STATUSES, teammateState, type TeamTask, type TeamTaskStatus } from '../../protocol/team';

/**
 * What every surface shows of a team run, computed once from its snapshot:
 * the roster (the lead and each teammate with its state, model, usage and
 * worktree; members the team file declares that were not started yet), the
 * task board (tasks by status, each with its owner and what still blocks
 * it) and the messages between teammates in the order they were sent. The
 * Runs view, the chat and the CLI render this, never the engine's state.
 */

export interface RosterEntry {
  agentId: string | null;
  /** The teammate's name; the lead's agent name. */
  name: string;
  /** The agent it runs. */
  agent: string;
  role: 'lead' | 'member';
  state: RosterState;
  status: AgentNode['status'] | null;
  model: string | null;
  usage: Usage | null;
  /** While it works in a worktree: its folder; once it ended with changes: the branch and counts. */
  worktreePath: string | null;
  worktree: WorktreeInfo | null;
  /** What it said when it last went idle, or ended. */
  said: string | null;
  /** Set for a member the team file declares. */
  declared: boolean;
  /** How many times it went idle, and what it said the last time. */
  rests: number;
  restedSaying: string | null;
}

export interface BoardTask {
  id: string;
  subject: string;
  status: TeamTaskStatus;
  owner: string | null;
  /** Tasks it waits for that are not completed. */
  blockedBy: string[];
  activeForm: string | null;
}

export interface TeamMessage {
  messageId: string;
  from: string;
  to: string;
  text: string;
  sentAt: number;
  /** Null while it waits for the recipient's next turn. */
  deliveredAt: number | null;
}

export interface TeamModel {
  /** The team file's name, else the lead's agent name. */
  name: string;
  filePath: string | null;
  roster: RosterEntry[];
  /** Every task, in creation order. */
  tasks: BoardTask[];
  /** Tasks by status, in the board's column order. */
  columns: Array<{ status: TeamTaskStatus; tasks: BoardTask[] }>;
  messages: TeamMessage[];
  counts: { tasks: number; completed: number; members: number; idle: number; working: number; waiting: number; ended: number };
}

/** Whether a run is a team run: started from a team file, with teammates, or with a task list. */
export function isTeamRun(run: RunSnapshot): boolean {
  return Boolean(run.team || run.tasks?.length || Object.values(run.agents).some((a) => a.member));
}

function nameOf(node: AgentNode | undefined): string {
  return node?.member ?? node?.agentName ?? 'someone';
}

export function teamModel(run: RunSnapshot): TeamModel | null {
  if (!isTeamRun(run)) return null;
  const lead = agentOf(run, run.rootAgentId);
  const members = Object.values(run.agents)
    .filter((a) => a.member)
    .sort((a, b) => a.startedAt - b.startedAt);
  const entry = (node: AgentNode, role: RosterEntry['role']): RosterEntry => ({
    agentId: node.agentId,
    name: nameOf(node),
    agent: node.agentName,
    role,
    state: teammateState(node.status),
    status: node.status,
    model: node.model,
    usage: node.usage,
    worktreePath: node.worktree ? null : node.worktreePath,
    worktree: node.worktree,
    said: node.status === 'idle' ? (node.idleOutput ?? null) : node.output,
    rests: node.rests ?? 0,
    restedSaying: node.restedSaying ?? null,
    declared: Boolean(run.team?.members.some((m) => m.name.toLowerCase() === node.member?.toLowerCase())),
  });
  const roster: RosterEntry[] = [...(lead ? [entry(lead, 'lead')] : []), ...members.map((m) => entry(m, 'member'))];
  for (const spec of run.team?.members ?? []) {
    if (members.some((m) => m.member?.toLowerCase() === spec.name.toLowerCase())) continue;
    roster.push({ agentId: null, name: spec.name, agent: spec.agent, role: 'member', state: 'not started', status: null, model: spec.model ?? null, usage: null, worktreePath: null, worktree: null, said: null, declared: true, rests: 0, restedSaying: null });
  }

  const all: readonly TeamTask[] = run.tasks ?? [];
  const tasks = all.map((t): BoardTask => ({ id: t.id, subject: t.subject, status: t.status, owner: t.owner, blockedBy: openBlockers(t, all), activeForm: t.activeForm ?? null }));
  const columns = TEAM_TASK_STATUSES.map((status) => ({ status, tasks: tasks.filter((t) => t.status === status) }));

  // Messages between the team's agents (the lead and its teammates), whoever sent them; the user's and results are other things.
  const inTeam = new Set(roster.map((r) => r.agentId).filter(Boolean));
  const messages: TeamMessage[] = [];
  for (const node of Object.values(run.agents)) {
    if (!inTeam.has(node.agentId)) continue;
    for (const m of node.messages ?? []) {
      if (m.kind !== 'message' || !m.from || !inTeam.has(m.from.agentId)) continue;
      messages.push({ messageId: m.messageId, from: nameOf(agentOf(run, m.from.agentId)) ?? m.from.agentName, to: nameOf(node), text: m.text, sentAt: m.sentAt, deliveredAt: m.deliveredAt });
    }
  }
  messages.sort((a, b) => a.sentAt - b.sentAt);

  const states = roster.filter((r) => r.role === 'member' && r.state !== 'not started').map((r) => r.state);
  return {
    name: run.team?.name ?? lead?.agentName ?? 'team',
    filePath: run.team?.filePath || null,
    roster,
    tasks,
    columns,
    messages,
    counts: {
      tasks: tasks.length,
      completed: tasks.filter((t) => t.status === 'completed').length,
      members: roster.filter((r) => r.role === 'member').length,
      idle: states.filter((s) => s === 'idle').length,
      working: states.filter((s) => s === 'working').length,
      waiting: states.filter((s) => s === 'waiting').length,
      ended: states.filter((s) => s === 'ended').length,
    },
  };
}

/** The task board as lines of text (the CLI tree, the chat's summary): `#2 ✓ Write beta.txt · bob`. */
export function taskLines(model: TeamModel): string[] {
  if (model.tasks.length === 0) return [];
  const mark: Record<TeamTaskStatus, string> = { pending: '○', in_progress: '●', completed: '✓' };
  return [
    `Tasks (${model.counts.tasks}, ${model.counts.completed} completed):`,
    ...model.tasks.map((t) => `  #${t.id} ${mark[t.status]} ${t.subject}${t.owner ? ` · ${t.owner}` : ''}${t.blockedBy.length ? ` · blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')}` : ''}`),
  ];
}
