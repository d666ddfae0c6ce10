import { blocksOf, openBlockers, type TeamTask, type TeamTaskStatus } from '../../../protocol/team';

/**
 * A run's shared task list and its rules, the one place that decides who
 * may take or change a task. Every decision reads and writes the list in one
 * synchronous step, so two teammates claiming the same task in the same
 * instant cannot both get it: the second is refused, saying who has it. A
 * refusal is a `TaskRefusal` whose message the model reads as a tool error.
 * The list lives in the engine's memory for the process that works on the
 * run; every change goes out as the task's whole state (`onChange`), which
 * the run store keeps in the run's snapshot, so it is saved and comes back
 * with the run.
 */

export class TaskRefusal extends Error {
  override name = 'TaskRefusal';
}

/** Who acts on the list: a teammate by its team name, another agent by its agent name. */
export interface TaskActor {
  agentId: string;
  name: string;
  /** The agent that leads the team (the run's first agent, or whoever spawned teammates): it may assign and reassign. */
  lead: boolean;
}

export interface NewTask {
  subject: string;
  description: string;
  activeForm?: string;
  metadata?: Record<string, unknown>;
  blockedBy?: readonly string[];
}

export interface TaskPatch {
  subject?: string;
  description?: string;
  activeForm?: string;
  status?: TeamTaskStatus | 'deleted';
  owner?: string | null;
  addBlockedBy?: readonly string[];
  addBlocks?: readonly string[];
  /** Merged into the task's metadata; a key set to null is removed. */
  metadata?: Record<string, unknown>;
}

export type TaskChange = 'created' | 'updated' | 'deleted';

export interface BoardOptions {
  /** Tasks restored with the run (a follow-up continues the list). */
  tasks?: readonly TeamTask[];
  /** Told of every change, with the actor (null: the team file's initial tasks). */
  onChange?: (change: TaskChange, task: TeamTask, actor: TaskActor | null) => void;
  /** Whether `name` is someone a task may be given to (a teammate or the lead); absent: anyone. */
  knows?: (name: string) => boolean;
  /** The names a task may be given to, for the refusal that names them. */
  names?: () => string[];
  now?: () => number;
}

export function taskLabel(task: TeamTask): string {
  return `#${task.id} "${task.subject}"`;
}

function describeHolder(task: TeamTask): string {
  return `${task.status.replace('_', ' ')}${task.owner ? `, owner ${task.owner}` : ''}`;
}

export class TaskBoard {
  readonly #tasks: TeamTask[];
  readonly #options: BoardOptions;
  #next: number;

  constructor(options: BoardOptions = {}) {
    this.#options = options;
    this.#tasks = (options.tasks ?? []).map((t) => structuredClone(t));
    this.#next = Math.max(0, ...this.#tasks.map((t) => Number(t.id)).filter(Number.isFinite)) + 1;
  }

  list(): readonly TeamTask[] {
    return this.#tasks;
  }

  get(id: string): TeamTask | undefined {
    return this.#tasks.find((t) => t.id === normaliseId(id));
  }

  /** The task `id` names, or the TaskRefusal that lists the tasks there are. */
  require(id: string): TeamTask {
    return this.#require(normaliseId(id));
  }

  /** Which of `task`'s blockers are still open. */
  openBlockers(task: TeamTask): string[] {
    return openBlockers(task, this.#tasks);
  }

  blocks(task: TeamTask): string[] {
    return blocksOf(task.id, this.#tasks);
  }

  /** The id the next task gets: handed out before its hooks run, so they can name it (a refused task leaves a gap). */
  reserveId(): string {
    return String(this.#next++);
  }

  create(input: NewTask, actor: TaskActor | null, id = this.reserveId()): TeamTask {
    const subject = input.subject.trim();
    if (!subject) throw new TaskRefusal('A task needs a subject.');
    const blockedBy = [...new Set((input.blockedBy ?? []).map(normaliseId))];
    for (const blocker of blockedBy) this.#require(blocker);
    const now = this.#now();
    const task: TeamTask = {
      id,
      subject,
      description: input.description.trim(),
      ...(input.activeForm ? { activeForm: input.activeForm } : {}),
      status: 'pending',
      owner: null,
      blockedBy,
      createdBy: actor ? { agentId: actor.agentId, name: actor.name } : null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      ...(input.metadata && Object.keys(input.metadata).length ? { metadata: { ...input.metadata } } : {}),
    };
    this.#tasks.push(task);
    this.#options.onChange?.('created', task, actor);
    return task;
  }

  /**
   * Checks `patch` without applying it: the refusal it would meet, thrown.
   * The TaskCompleted hooks run between this check and `update`, which
   * checks again (the list may have changed meanwhile).
   */
  check(id: string, patch: TaskPatch, actor: TaskActor): TeamTask {
    const task = this.#require(normaliseId(id));
    this.#decide(task, patch, actor);
    return task;
  }

  /** Applies `patch` as one step, or throws the TaskRefusal that says why not. Returns the task after the change. */
  update(id: string, patch: TaskPatch, actor: TaskActor): { task: TeamTask; change: TaskChange; fields: string[] } {
    const task = this.#require(normaliseId(id));
    const next = this.#decide(task, patch, actor);
    if (patch.status === 'deleted') {
      this.#tasks.splice(this.#tasks.indexOf(task), 1);
      // A task nobody can complete any more blocks nothing: it leaves every list that named it.
      for (const other of this.#tasks) {
        if (!other.blockedBy.includes(task.id)) continue;
        other.blockedBy = other.blockedBy.filter((b) => b !== task.id);
        other.updatedAt = this.#now();
        this.#options.onChange?.('updated', other, actor);
      }
      this.#options.onChange?.('deleted', task, actor);
      return { task, change: 'deleted', fields: ['status'] };
    }
    const fields: string[] = (Object.keys(next) as (keyof TeamTask)[]).filter((k) => JSON.stringify(next[k]) !== JSON.stringify(task[k]));
    for (const blocked of patch.addBlocks ?? []) {
      const other = this.#require(normaliseId(blocked));
      if (other.blockedBy.includes(task.id)) continue;
      other.blockedBy = [...other.blockedBy, task.id];
      other.updatedAt = this.#now();
      this.#options.onChange?.('updated', other, actor);
      if (!fields.includes('blocks')) fields.push('blocks');
    }
    if (fields.every((f) => f === 'blocks')) return { task, change: 'updated', fields };
    Object.assign(task, next, { updatedAt: this.#now() });
    this.#options.onChange?.('updated', task, actor);
    return { task, change: 'updated', fields };
  }

  /** What `patch` makes of `task`, by the rules; throws a TaskRefusal that names who or what is in the way. */
  #decide(task: TeamTask, patch: TaskPatch, actor: TaskActor): Partial<TeamTask> {
    const next: Partial<TeamTask> = {};
    const holder = task.owner && task.owner.toLowerCase() !== actor.name.toLowerCase() ? task.owner : null;
    if (patch.subject !== undefined) {
      if (!patch.subject.trim()) throw new TaskRefusal('A task needs a subject.');
      next.subject = patch.subject.trim();
    }
    if (patch.description !== undefined) next.description = patch.description.trim();
    if (patch.activeForm !== undefined) next.activeForm = patch.activeForm;
    if (patch.metadata !== undefined) {
      const merged = { ...(task.metadata ?? {}) };
      for (const [key, value] of Object.entries(patch.metadata)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      next.metadata = merged;
    }
    if (patch.status === 'deleted') {
      if (holder && task.status === 'in_progress' && !actor.lead) throw new TaskRefusal(`${taskLabel(task)} is being worked on by ${holder}; only they or the lead can delete it.`);
      return next;
    }
    const blockers = [...new Set([...task.blockedBy, ...(patch.addBlockedBy ?? []).map(normaliseId)])];
    for (const blocker of patch.addBlockedBy ?? []) this.#blockable(task, this.#require(normaliseId(blocker)));
    for (const blocked of patch.addBlocks ?? []) this.#blockable(this.#require(normaliseId(blocked)), task);
    if (blockers.length !== task.blockedBy.length) next.blockedBy = blockers;

    if (patch.owner !== undefined) {
      const owner = patch.owner === null || patch.owner.trim() === '' ? null : patch.owner.trim();
      if (owner && this.#options.knows && !this.#options.knows(owner)) {
        throw new TaskRefusal(`No teammate is called "${owner}". The team: ${this.#options.names?.().join(', ') || 'nobody yet'}.`);
      }
      const self = owner !== null && owner.toLowerCase() === actor.name.toLowerCase();
      if (holder && task.status !== 'completed' && !actor.lead && owner?.toLowerCase() !== holder.toLowerCase()) {
        throw new TaskRefusal(`${taskLabel(task)} is owned by ${holder} (${describeHolder(task)}); you cannot take it. Pick another task with TaskList, or ask ${holder} with SendMessage.`);
      }
      if (self && !actor.lead) this.#claimable(task, blockers);
      next.owner = owner;
    }
    const status = patch.status;
    if (status === 'in_progress' || status === 'completed') {
      // Asked for even when the status is already that: taking someone's task in progress is taking it.
      const owner = next.owner !== undefined ? next.owner : task.owner;
      const others = owner && owner.toLowerCase() !== actor.name.toLowerCase() ? owner : null;
      if (others && !actor.lead) {
        throw new TaskRefusal(`${taskLabel(task)} is owned by ${others} (${describeHolder(task)}); you cannot ${status === 'completed' ? 'complete' : 'take'} it. Pick another task with TaskList, or ask ${others} with SendMessage.`);
      }
      if (status !== task.status) this.#claimable(task, blockers);
      if (!owner) next.owner = actor.name;
    }
    if (status !== undefined && status !== task.status) {
      next.status = status;
      next.completedAt = status === 'completed' ? this.#now() : null;
    }
    return next;
  }

  /** Refuses a claim of a task some task it waits for has not finished. */
  #claimable(task: TeamTask, blockers: readonly string[]): void {
    const open = openBlockers({ blockedBy: blockers }, this.#tasks);
    if (open.length === 0) return;
    const named = open.map((id) => {
      const blocker = this.get(id)!;
      return `${taskLabel(blocker)} (${describeHolder(blocker)})`;
    });
    throw new TaskRefusal(`${taskLabel(task)} is blocked by ${named.join(' and ')}: it can be claimed once ${open.length === 1 ? 'that task is' : 'those are'} completed. Wait for a message, or pick an unblocked task with TaskList.`);
  }

  /** `task` may wait for `blocker`: not itself, and not when that would make a cycle. */
  #blockable(task: TeamTask, blocker: TeamTask): void {
    if (task.id === blocker.id) throw new TaskRefusal(`${taskLabel(task)} cannot block itself.`);
    const seen = new Set<string>();
    const waits = (id: string): boolean => {
      if (id === task.id) return true;
      if (seen.has(id)) return false;
      seen.add(id);
      return (this.get(id)?.blockedBy ?? []).some(waits);
    };
    if (waits(blocker.id)) throw new TaskRefusal(`${taskLabel(task)} cannot wait for ${taskLabel(blocker)}: ${taskLabel(blocker)} already waits for it.`);
  }

  #require(id: string): TeamTask {
    const task = this.#tasks.find((t) => t.id === id);
    if (task) return task;
    const known = this.#tasks.map((t) => `#${t.id}`).join(', ');
    throw new TaskRefusal(`No task #${id} in this run's task list.${known ? ` Its tasks: ${known}.` : ' The list is empty.'}`);
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}

/** `#3`, ` 3 ` and `3` all name task 3. */
function normaliseId(id: string): string {
  return String(id).trim().replace(/^#/, '');
}
