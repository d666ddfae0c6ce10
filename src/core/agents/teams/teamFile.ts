import path from 'node:path';
import type { TeamMemberSpec } from '../../../protocol/team';
import { parseYamlFrontmatter, splitFrontmatter } from '../parsing/frontmatter';

/**
 * A team file: Markdown with YAML frontmatter, `.subagents/teams/<name>.md`
 * in a project or in the user's config folder. The frontmatter names the
 * team, its lead (an agent; the bundled general-purpose one when absent),
 * its members (each a name, an agent, and optionally where it works, a
 * model and a prompt), where members work by default, and the tasks the
 * list starts with; the body is the lead's brief. Parsing is forgiving: a
 * broken member or task is dropped with a problem naming it, and the rest
 * of the team stays usable; only a file whose frontmatter cannot be read at
 * all is no team.
 */

export const TEAM_SOURCES = ['project', 'user'] as const;
export type TeamSource = (typeof TEAM_SOURCES)[number];

export interface TeamStartTaskSpec {
  subject: string;
  description?: string;
  /** Earlier tasks of the file, by number (1 is the first). */
  blockedBy?: number[];
}

export interface TeamDefinition {
  name: string;
  description: string;
  /** The agent that leads the team. */
  lead: string;
  members: TeamMemberSpec[];
  /** Where members work unless a member says; absent: the `teams.isolation` setting. */
  isolation: 'worktree' | 'none' | null;
  tasks: TeamStartTaskSpec[];
  /** The lead's brief. */
  body: string;
  filePath: string;
  source: TeamSource;
}

export interface TeamProblem {
  filePath: string;
  severity: 'error' | 'warning';
  message: string;
  /** The frontmatter key it is about, for the language server to point at. */
  key?: string;
}

export interface ParsedTeam {
  team: TeamDefinition | null;
  problems: TeamProblem[];
}

/** The fields a team file may hold. */
export const TEAM_FIELDS = ['name', 'description', 'lead', 'members', 'isolation', 'tasks'] as const;
export const MEMBER_FIELDS = ['name', 'agent', 'isolation', 'model', 'prompt'] as const;

/** A teammate's name: what a person would type, and safe in a branch name and a hook's JSON (the engine checks the same). */
const MEMBER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ISOLATIONS = ['worktree', 'none'];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A team's name: the file's `name`, else its file name without `.md`. */
export function teamNameOf(filePath: string): string {
  return path.basename(filePath).replace(/\.md$/i, '');
}

export function parseTeamFile(text: string, filePath: string, source: TeamSource): ParsedTeam {
  const problems: TeamProblem[] = [];
  const error = (message: string, key?: string): ParsedTeam => ({ team: null, problems: [{ filePath, severity: 'error', message, ...(key ? { key } : {}) }] });
  const warn = (message: string, key?: string) => problems.push({ filePath, severity: 'warning', message, ...(key ? { key } : {}) });

  const split = splitFrontmatter(text);
  if (split.kind === 'unterminated') return error('The frontmatter has no closing "---" line.');
  if (split.kind === 'none') return error('A team file starts with YAML frontmatter between "---" lines (name, lead, members).');
  const yaml = parseYamlFrontmatter(split.frontmatter, split.firstLine);
  if (!yaml.ok) return error(`The frontmatter is not valid YAML: ${yaml.message}.`);
  const data = yaml.data;

  for (const key of Object.keys(data)) {
    if (!(TEAM_FIELDS as readonly string[]).includes(key)) warn(`Unknown field "${key}" is ignored. A team file has: ${TEAM_FIELDS.join(', ')}.`, key);
  }
  const text_ = (key: string): string | null => {
    const value = data[key];
    if (value === undefined || value === null) return null;
    if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
    warn(`"${key}" must be text; it is ignored.`, key);
    return null;
  };

  const name = text_('name') || teamNameOf(filePath);
  if (!MEMBER_NAME.test(name)) return error(`"${name}" cannot be a team's name: use letters, digits, ".", "_" or "-", starting with a letter or digit.`, 'name');
  const lead = text_('lead') || 'general-purpose';

  let isolation: TeamDefinition['isolation'] = null;
  const rawIsolation = text_('isolation');
  if (rawIsolation !== null) {
    if (ISOLATIONS.includes(rawIsolation)) isolation = rawIsolation as 'worktree' | 'none';
    else warn(`"isolation" is "worktree" or "none", not "${rawIsolation}"; the setting subagents.teams.isolation applies.`, 'isolation');
  }

  const members = parseMembers(data.members, warn);
  const tasks = parseTasks(data.tasks, warn);
  if (members.length === 0 && data.members !== undefined) warn('No usable member: the lead starts teammates of its own choosing.', 'members');

  return {
    team: { name, description: text_('description') ?? '', lead, members, isolation, tasks, body: split.body.trim(), filePath, source },
    problems,
  };
}

function parseMembers(raw: unknown, warn: (message: string, key?: string) => void): TeamMemberSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    warn('"members" is a list, each item with a name and an agent.', 'members');
    return [];
  }
  const members: TeamMemberSpec[] = [];
  raw.forEach((item, index) => {
    const where = `members[${index + 1}]`;
    if (!isRecord(item)) return warn(`${where} is not a member: give "name" and "agent".`, 'members');
    for (const key of Object.keys(item)) {
      if (!(MEMBER_FIELDS as readonly string[]).includes(key)) warn(`${where}: unknown field "${key}" is ignored. A member has: ${MEMBER_FIELDS.join(', ')}.`, 'members');
    }
    const name = typeof item.name === 'string' ? item.name.trim() : '';
    const agent = typeof item.agent === 'string' ? item.agent.trim() : '';
    if (!name) return warn(`${where} has no "name"; it is left out.`, 'members');
    if (!MEMBER_NAME.test(name)) return warn(`${where}: "${name}" cannot be a teammate's name (letters, digits, ".", "_", "-"); it is left out.`, 'members');
    if (['team-lead', 'lead', 'user', 'me', 'all'].includes(name.toLowerCase())) return warn(`${where}: "${name}" is a name SendMessage already uses; it is left out.`, 'members');
    if (members.some((m) => m.name.toLowerCase() === name.toLowerCase())) return warn(`${where}: a member called "${name}" is declared already; this one is left out.`, 'members');
    if (!agent) return warn(`${where} ("${name}") names no "agent"; it is left out.`, 'members');
    const member: TeamMemberSpec = { name, agent };
    if (item.isolation != null) {
      if (typeof item.isolation === 'string' && ISOLATIONS.includes(item.isolation)) member.isolation = item.isolation as 'worktree' | 'none';
      else warn(`${where} ("${name}"): "isolation" is "worktree" or "none"; the team's applies.`, 'members');
    }
    if (item.model != null) {
      if (typeof item.model === 'string' && item.model.trim()) member.model = item.model.trim();
      else warn(`${where} ("${name}"): "model" must be text; the agent's own applies.`, 'members');
    }
    if (item.prompt != null) {
      if (typeof item.prompt === 'string') member.prompt = item.prompt;
      else warn(`${where} ("${name}"): "prompt" must be text; it is ignored.`, 'members');
    }
    members.push(member);
  });
  return members;
}

function parseTasks(raw: unknown, warn: (message: string, key?: string) => void): TeamStartTaskSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    warn('"tasks" is a list of tasks (text, or an object with "subject", "description", "blockedBy").', 'tasks');
    return [];
  }
  const tasks: TeamStartTaskSpec[] = [];
  // Task numbers are positions in the file; a dropped one still takes its number, so later references keep meaning what they say.
  const kept = new Map<number, number>();
  raw.forEach((item, index) => {
    const where = `tasks[${index + 1}]`;
    if (typeof item === 'string' && item.trim()) {
      kept.set(index + 1, tasks.push({ subject: item.trim() }));
      return;
    }
    if (!isRecord(item) || typeof item.subject !== 'string' || !item.subject.trim()) return warn(`${where} has no "subject"; it is left out.`, 'tasks');
    const task: TeamStartTaskSpec = { subject: item.subject.trim() };
    if (typeof item.description === 'string') task.description = item.description;
    if (item.blockedBy !== undefined) {
      const list = Array.isArray(item.blockedBy) ? item.blockedBy : [item.blockedBy];
      const numbers: number[] = [];
      for (const ref of list) {
        const n = Number(String(ref).replace(/^#/, ''));
        const mapped = kept.get(n);
        if (!Number.isInteger(n) || n < 1 || n > index) warn(`${where}: "blockedBy" names ${JSON.stringify(ref)}, which is not an earlier task's number; it is ignored.`, 'tasks');
        else if (mapped === undefined) warn(`${where}: task ${n} it waits for was left out; that wait is ignored.`, 'tasks');
        else numbers.push(mapped);
      }
      if (numbers.length) task.blockedBy = numbers;
    }
    kept.set(index + 1, tasks.push(task));
  });
  return tasks;
}
