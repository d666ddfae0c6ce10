import * as z from 'zod';
import { TEAM_TASK_STATUSES, type TeamTask } from '../../../protocol/team';
import { builtinTool } from '../../../protocol/tools';
import { zodValidator } from '../../tools/inputValidation';
import { field, oneLine, ToolCallError, type RuntimeTool } from '../../tools/runtimeTool';
import type { TeamHookVerdict } from '../tree/lifecycleHooks';
import { taskLabel, TaskRefusal, type TaskActor, type TaskPatch } from './taskBoard';
import type { Team } from './team';

/**
 * `TaskCreate`, `TaskList`, `TaskGet` and `TaskUpdate`: the run's shared
 * task list, under Claude Code's names and with its inputs, so agent files
 * written for its teams work as they are. Claiming is `TaskUpdate` with
 * `status: in_progress` (or `owner` set to yourself); the board refuses a
 * task someone else owns, or one still waiting for another, and says by
 * what. TaskCreated and TaskCompleted hooks may refuse a change (exit 2).
 * Results are short text: every agent of a team reads them often.
 */

/** What the tools need besides the list. */
export interface TaskListContext {
  team: Team;
  /** Who calls, asked at each call (an agent becomes a lead when it spawns its first teammate). */
  actor(): TaskActor;
  /** The TaskCreated hooks, for a task about to be created under a reserved id. */
  created(task: { id: string; subject: string; description: string }): Promise<TeamHookVerdict>;
  /** The TaskCompleted hooks, for a task about to be marked completed. */
  completed(task: TeamTask): Promise<TeamHookVerdict>;
  /** A hook's `"continue": false`: the calling teammate ends after this turn. */
  stop(reason: string): void;
}

const taskId = z.union([z.string(), z.number()]).transform((id) => String(id));
const idList = z.array(taskId);

const createSchema = z.object({
  subject: z.string().min(1).describe('A short title in the imperative ("Write the parser").'),
  description: z.string().optional().describe('What needs to be done, with what a teammate needs to know to do it.'),
  activeForm: z.string().optional().describe('What a spinner says while it is worked on ("Writing the parser").'),
  blockedBy: idList.optional().describe('Ids of tasks that must be completed before this one can be claimed.'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const updateSchema = z.object({
  taskId: taskId.describe('The task to change ("3").'),
  status: z.enum([...TEAM_TASK_STATUSES, 'deleted']).optional().describe('in_progress claims it (you become its owner); completed when it is fully done; deleted removes it.'),
  owner: z.string().optional().describe('Who works on it: a teammate\'s name (the lead assigns), or your own to claim it; "" leaves it unowned.'),
  subject: z.string().optional(),
  description: z.string().optional(),
  activeForm: z.string().optional(),
  addBlockedBy: idList.optional().describe('Tasks this one must wait for.'),
  addBlocks: idList.optional().describe('Tasks that must wait for this one.'),
  blockedBy: idList.optional().describe('The same as addBlockedBy.'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Merged into its metadata; a key set to null is removed.'),
});

const getSchema = z.object({ taskId: taskId.describe('The task to read ("3").') });
const listSchema = z.object({});

const parseCreate = zodValidator('TaskCreate', createSchema);
const parseUpdate = zodValidator('TaskUpdate', updateSchema);
const parseGet = zodValidator('TaskGet', getSchema);

function line(task: TeamTask, team: Team): string {
  const open = team.board.openBlockers(task);
  const extras = [task.owner ? `owner: ${task.owner}` : null, open.length ? `blocked by ${open.map((id) => `#${id}`).join(', ')}` : null].filter(Boolean);
  return `#${task.id} [${task.status}] ${task.subject}${extras.length ? ` (${extras.join('; ')})` : ''}`;
}

function details(task: TeamTask, team: Team): string {
  const board = team.board;
  const blockers = task.blockedBy.map((id) => {
    const blocker = board.get(id);
    return blocker ? `#${id} (${blocker.status}${blocker.owner ? `, ${blocker.owner}` : ''})` : `#${id} (deleted)`;
  });
  const blocks = board.blocks(task).map((id) => `#${id}`);
  return [
    `Task #${task.id}: ${task.subject}`,
    `Status: ${task.status}; owner: ${task.owner ?? 'none'}`,
    ...(blockers.length ? [`Blocked by: ${blockers.join(', ')}${board.openBlockers(task).length ? '' : ' (all completed)'}`] : []),
    ...(blocks.length ? [`Blocks: ${blocks.join(', ')}`] : []),
    ...(task.description ? ['Description:', task.description] : []),
  ].join('\n');
}

/** A board refusal is the model's to correct; anything else is a bug, and stays one. */
function refusals<T>(act: () => T): T {
  try {
    return act();
  } catch (error) {
    if (error instanceof TaskRefusal) throw new ToolCallError(error.message);
    throw error;
  }
}

/** A hook's refusal, as the model reads it; a `stop` also ends the calling teammate. */
function hookRefusal(verdict: TeamHookVerdict, what: string, context: TaskListContext): string | null {
  if (verdict.stop !== undefined) {
    context.stop(verdict.stop);
    return `${what} was refused by a hook, which also ends your work: ${verdict.stop || 'no reason given'}`;
  }
  return verdict.block !== undefined ? `${what} was refused by a hook: ${verdict.block}` : null;
}

export function taskCreateTool(context: TaskListContext): RuntimeTool {
  return {
    ...builtinTool('TaskCreate'),
    definition: {
      name: 'TaskCreate',
      description:
        "Add a task to this run's shared task list, which every teammate and the lead see. Give a clear subject and a description a teammate can act on; blockedBy names tasks that must be completed first. New tasks are pending and unowned: a teammate claims one with TaskUpdate.",
      input_schema: z.toJSONSchema(createSchema, { io: 'input' }) as never,
    },
    summarizeInput: (input) => oneLine(field(input, 'subject') ?? '', 80),
    run: async (raw) => {
      const input = parseCreate(raw);
      const { board } = context.team;
      const actor = context.actor();
      // Checked before the hooks run and again as it is added: a blocker may be deleted meanwhile.
      for (const blocker of input.blockedBy ?? []) refusals(() => board.require(blocker));
      const id = board.reserveId();
      const refusal = hookRefusal(await context.created({ id, subject: input.subject.trim(), description: (input.description ?? '').trim() }), `Task #${id} "${input.subject.trim()}"`, context);
      if (refusal) throw new ToolCallError(refusal);
      const task = refusals(() => board.create({ ...input, description: input.description ?? '' }, actor, id));
      const waits = task.blockedBy.length ? ` It waits for ${task.blockedBy.map((b) => `#${b}`).join(', ')}.` : '';
      return `Task #${task.id} created: ${task.subject}.${waits}`;
    },
  };
}

export function taskListTool(context: TaskListContext): RuntimeTool {
  return {
    ...builtinTool('TaskList'),
    definition: {
      name: 'TaskList',
      description: "List this run's shared task list: each task's id, status, owner and the tasks it still waits for. Look here for work to claim, and when you finish a task, for your next one.",
      input_schema: z.toJSONSchema(listSchema) as never,
    },
    summarizeInput: () => '',
    summarizeResult: (output) => oneLine(output.split('\n')[0] ?? ''),
    run: async () => {
      const { team } = context;
      const tasks = team.board.list();
      if (tasks.length === 0) return 'The task list is empty.';
      const done = tasks.filter((t) => t.status === 'completed').length;
      const claimable = tasks.filter((t) => t.status === 'pending' && !t.owner && team.board.openBlockers(t).length === 0);
      return [
        `${tasks.length} task${tasks.length === 1 ? '' : 's'}, ${done} completed:`,
        ...tasks.map((t) => line(t, team)),
        ...(claimable.length ? [`Free to claim (TaskUpdate with status in_progress): ${claimable.map((t) => `#${t.id}`).join(', ')}.`] : []),
      ].join('\n');
    },
  };
}

export function taskGetTool(context: TaskListContext): RuntimeTool {
  return {
    ...builtinTool('TaskGet'),
    definition: {
      name: 'TaskGet',
      description: 'Read one task of the shared task list in full: its description, status, owner, what it waits for and what waits for it.',
      input_schema: z.toJSONSchema(getSchema, { io: 'input' }) as never,
    },
    summarizeInput: (input) => `#${field(input, 'taskId') ?? '?'}`,
    summarizeResult: (output) => oneLine(output.split('\n')[1] ?? output),
    run: async (raw) => {
      const { taskId: id } = parseGet(raw);
      return details(refusals(() => context.team.board.require(id)), context.team);
    },
  };
}

export function taskUpdateTool(context: TaskListContext): RuntimeTool {
  return {
    ...builtinTool('TaskUpdate'),
    definition: {
      name: 'TaskUpdate',
      description: [
        'Change a task of the shared task list.',
        'Claim a task by setting status in_progress (you become its owner); a task someone else owns, or one waiting for a task that is not completed, cannot be claimed and the call says why.',
        'Set status completed only when the work is fully done; then look at TaskList for your next task. The lead assigns work by setting owner to a teammate\'s name.',
      ].join(' '),
      input_schema: z.toJSONSchema(updateSchema, { io: 'input' }) as never,
    },
    summarizeInput: (input) => {
      const parts = [field(input, 'status'), field(input, 'owner') !== undefined ? `owner ${field(input, 'owner') || 'none'}` : undefined].filter(Boolean);
      return `#${field(input, 'taskId') ?? '?'}${parts.length ? ` → ${parts.join(', ')}` : ''}`;
    },
    run: async (raw) => {
      const input = parseUpdate(raw);
      const { board } = context.team;
      const patch: TaskPatch = {
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.owner !== undefined ? { owner: input.owner } : {}),
        ...(input.subject !== undefined ? { subject: input.subject } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.activeForm !== undefined ? { activeForm: input.activeForm } : {}),
        ...(input.addBlockedBy || input.blockedBy ? { addBlockedBy: [...(input.addBlockedBy ?? []), ...(input.blockedBy ?? [])] } : {}),
        ...(input.addBlocks ? { addBlocks: input.addBlocks } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
      };
      const before = refusals(() => board.check(input.taskId, patch, context.actor()));
      if (patch.status === 'completed' && before.status !== 'completed') {
        const refusal = hookRefusal(await context.completed(before), `Completing ${taskLabel(before)}`, context);
        if (refusal) throw new ToolCallError(refusal);
      }
      const wasOpen = new Set(board.list().filter((t) => board.openBlockers(t).length > 0).map((t) => t.id));
      const { task, change, fields } = refusals(() => board.update(input.taskId, patch, context.actor()));
      if (change === 'deleted') return `Task #${task.id} deleted.`;
      if (fields.length === 0) return `Task #${task.id} is unchanged: ${line(task, context.team)}`;
      const freed = board.list().filter((t) => wasOpen.has(t.id) && board.openBlockers(t).length === 0);
      return [
        `Updated task #${task.id} (${fields.join(', ')}): ${line(task, context.team)}`,
        ...(freed.length ? [`No longer blocked: ${freed.map((t) => line(t, context.team)).join('; ')}.`] : []),
        ...(task.status === 'completed' ? ['Look at TaskList for what to do next.'] : []),
      ].join('\n');
    },
  };
}

/** The four tools, in the registry's order. */
export function taskListTools(context: TaskListContext): RuntimeTool[] {
  return [taskCreateTool(context), taskListTool(context), taskGetTool(context), taskUpdateTool(context)];
}
