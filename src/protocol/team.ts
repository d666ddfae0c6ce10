import * as z from 'zod/mini';

/**
 * What a team is on the wire: the shared task list of a run (the tools
 * TaskCreate, TaskList, TaskGet and TaskUpdate work on it, under Claude
 * Code's names and meanings) and the team a run was started from (its team
 * file's name and declared members). The engine emits a task's whole state
 * at every change; the run store keeps the list in the run's snapshot, so it
 * is saved, resumed and shown with the run. Kept to zod/mini and constants:
 * the webview bundle imports it.
 */

/** A task's status, Claude Code's words: `pending` (open), `in_progress` (claimed and worked on), `completed`. */
export const TEAM_TASK_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TeamTaskStatus = (typeof TEAM_TASK_STATUSES)[number];

const agentRef = z.object({ agentId: z.string(), name: z.string() });

export const teamTaskSchema = z.object({
  /** `1`, `2`, …: numbered in creation order within the run, as Claude Code numbers them. */
  id: z.string(),
  subject: z.string(),
  description: z.string(),
  /** What a spinner says while it is worked on (`Running the tests`). */
  activeForm: z.optional(z.string()),
  status: z.enum(TEAM_TASK_STATUSES),
  /** The teammate name (or agent name) that claimed it. */
  owner: z.nullable(z.string()),
  /** Tasks that must be completed before this one can be claimed. */
  blockedBy: z.array(z.string()),
  /** Who created it: an agent, or null for the team file's initial tasks. */
  createdBy: z.nullable(agentRef),
  createdAt: z.number(),
  updatedAt: z.number(),
  completedAt: z.nullable(z.number()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
});
export type TeamTask = z.infer<typeof teamTaskSchema>;

/** One member a team file declares: the lead spawns it by this name. */
export const teamMemberSpecSchema = z.object({
  name: z.string(),
  agent: z.string(),
  model: z.optional(z.string()),
  isolation: z.optional(z.enum(['worktree', 'none'])),
  /** Said to the member before the task the lead gives it. */
  prompt: z.optional(z.string()),
});
export type TeamMemberSpec = z.infer<typeof teamMemberSpecSchema>;

/** The team a run was started from (a team file), as its snapshot keeps it. */
export const runTeamSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** The team file; empty for a team the lead made up as it went (named spawns). */
  filePath: z.string(),
  lead: z.string(),
  members: z.array(teamMemberSpecSchema),
  /** Where teammates that may edit work by default. */
  isolation: z.enum(['worktree', 'none']),
});
export type RunTeam = z.infer<typeof runTeamSchema>;

/** The address teammates use for the agent that leads them (Claude Code's name for it). */
export const TEAM_LEAD_ADDRESS = 'team-lead';

/** Which tasks still block `task`: those it names that exist and are not completed (a deleted one blocks nothing). */
export function openBlockers(task: { readonly blockedBy: readonly string[] }, tasks: readonly TeamTask[]): string[] {
  return task.blockedBy.filter((id) => {
    const blocker = tasks.find((t) => t.id === id);
    return blocker !== undefined && blocker.status !== 'completed';
  });
}

/** The tasks `task` blocks: those that name it in their `blockedBy`. */
export function blocksOf(taskId: string, tasks: readonly TeamTask[]): string[] {
  return tasks.filter((t) => t.blockedBy.includes(taskId)).map((t) => t.id);
}

/**
 * The four states a teammate is in, as every surface shows them: `working`
 * (taking turns, or queued for a place), `waiting` (for your approval),
 * `idle` (its turn ended; a message wakes it) and `ended`.
 */
export const TEAMMATE_STATES = ['working', 'waiting', 'idle', 'ended'] as const;
export type TeammateState = (typeof TEAMMATE_STATES)[number];

export function teammateState(status: string): TeammateState {
  if (status === 'waiting' || status === 'idle') return status;
  return status === 'running' || status === 'queued' ? 'working' : 'ended';
}
