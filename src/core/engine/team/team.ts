import type { RunTeam, TeamMemberSpec, TeamTask } from '../../../protocol/team';
import { TaskBoard, type TaskActor, type TaskChange } from './taskBoard';

/**
 * The team of one run: its shared task list, who is on it (teammates by
 * name, each with the agent that leads it) and, for a run started from a
 * team file, what the file declares. One per run, kept by the engine for as
 * long as it knows agents of the run, and rebuilt from the run's record in
 * the history when a follow-up continues the run in another process.
 */

export interface TeamMember {
  /** Its name in the team, unique in the run (case does not matter). */
  name: string;
  agentId: string;
  /** The agent that spawned it (and that it reports to as `team-lead`). */
  leadId: string | null;
}

/** What a run's record keeps of its team, to rebuild it for a follow-up. */
export interface TeamRecord {
  info: RunTeam | null;
  tasks: readonly TeamTask[];
  members: readonly TeamMember[];
}

/** A task a team file starts the list with; `blockedBy` names earlier ones by number (1 is the first). */
export interface TeamStartTask {
  subject: string;
  description?: string;
  blockedBy?: readonly number[];
}

export interface TeamOptions {
  runId: string;
  /** The run's first agent's name: the team's name when no team file names it. */
  leadName: string;
  record?: TeamRecord;
  /** Publishes a task change as an event of the acting agent's (the run's first agent's for the team file's initial tasks). */
  onTaskChange(agentId: string, change: TaskChange, task: TeamTask): void;
}

/** Teammate names: what a person would type, and safe in a branch name and a hook's JSON. */
export const MEMBER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Names that already mean something to SendMessage. */
const RESERVED_NAMES = new Set(['team-lead', 'lead', 'user', 'me', 'all', '*']);

export class Team {
  readonly runId: string;
  readonly info: RunTeam | null;
  readonly board: TaskBoard;
  readonly #leadName: string;
  readonly #members = new Map<string, TeamMember>();
  /** Teammates not ended: at work, idle, or being started. */
  readonly #live = new Set<string>();
  #seeds: TeamStartTask[] = [];

  constructor(options: TeamOptions) {
    this.runId = options.runId;
    this.info = options.record?.info ?? null;
    this.#leadName = options.leadName;
    for (const member of options.record?.members ?? []) this.#members.set(member.name.toLowerCase(), { ...member });
    this.board = new TaskBoard({
      tasks: options.record?.tasks,
      // A copy: the board goes on changing its own.
      onChange: (change, task, actor) => options.onTaskChange(actor?.agentId ?? options.runId, change, structuredClone(task)),
      knows: (name) => this.#members.has(name.toLowerCase()) || this.#leads(name),
      names: () => this.names(),
    });
  }

  /** The team's name, as hooks get it (`team_name`): the team file's, else its first agent's. */
  get name(): string {
    return this.info?.name ?? this.#leadName;
  }

  /** Whether the run has a team at all: a team file, or teammates. */
  get formed(): boolean {
    return this.info !== null || this.#members.size > 0;
  }

  members(): TeamMember[] {
    return [...this.#members.values()];
  }

  member(name: string): TeamMember | undefined {
    return this.#members.get(name.trim().toLowerCase());
  }

  memberById(agentId: string): TeamMember | undefined {
    return this.members().find((m) => m.agentId === agentId);
  }

  /** What the team file says of the member `name`, if it declares one. */
  declared(name: string): TeamMemberSpec | undefined {
    return this.info?.members.find((m) => m.name.toLowerCase() === name.trim().toLowerCase());
  }

  /** Whether `agentId` leads teammates (or is the first agent of a team file's run). */
  leads(agentId: string): boolean {
    return (this.info !== null && agentId === this.runId) || this.members().some((m) => m.leadId === agentId);
  }

  /** Why `name` cannot be a new teammate's, or null when it can. */
  refuseName(name: string): string | null {
    if (!MEMBER_NAME.test(name)) return `"${name}" cannot be a teammate's name: use letters, digits, ".", "_" or "-" (at most 64), starting with a letter or digit.`;
    if (RESERVED_NAMES.has(name.toLowerCase())) return `"${name}" cannot be a teammate's name: SendMessage already uses it.`;
    const taken = this.member(name);
    if (taken) return `A teammate called "${taken.name}" (${taken.agentId}) is already on this team; send it a message with SendMessage instead, or pick another name.`;
    return null;
  }

  /** A new teammate, on the roster (and counted) from before its worktree is made. */
  register(member: TeamMember): void {
    this.#members.set(member.name.toLowerCase(), member);
    this.#live.add(member.agentId);
  }

  /** A teammate that never started (its worktree could not be made) leaves the roster. */
  unregister(agentId: string): void {
    const member = this.memberById(agentId);
    if (member) this.#members.delete(member.name.toLowerCase());
    this.#live.delete(agentId);
  }

  /** A teammate at work again (continued by a message), or ended. */
  atWork(agentId: string, working: boolean): void {
    if (working) this.#live.add(agentId);
    else this.#live.delete(agentId);
  }

  /** How many teammates have not ended (the cap subagents.teams.maxTeammates counts them). */
  get live(): number {
    return this.#live.size;
  }

  /** Names a task can be given to: the teammates, and the agents that lead them. */
  names(): string[] {
    return [...this.#members.values()].map((m) => m.name);
  }

  /** How `agentId` acts on the task list: by its team name when it is a teammate, else by its agent name. */
  actor(agentId: string, agentName: string): TaskActor {
    const member = this.memberById(agentId);
    return { agentId, name: member?.name ?? agentName, lead: this.leads(agentId) || agentId === this.runId };
  }

  /** The team file's tasks, created once its lead has started (so every surface hears of them after the run begins). */
  seed(tasks: readonly TeamStartTask[]): void {
    this.#seeds = [...tasks];
  }

  plantSeeds(): void {
    const seeds = this.#seeds.splice(0);
    for (const task of seeds) {
      this.board.create({ subject: task.subject, description: task.description ?? '', blockedBy: (task.blockedBy ?? []).map(String).filter((id) => this.board.get(id)) }, null);
    }
  }

  record(): TeamRecord {
    return { info: this.info, tasks: this.board.list(), members: this.members() };
  }

  /** A name that is not a teammate's may still be the lead's agent name, given as an owner. */
  #leads(name: string): boolean {
    return name.toLowerCase() === this.#leadName.toLowerCase();
  }
}
