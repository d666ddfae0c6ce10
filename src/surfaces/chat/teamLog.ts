import type { RunSnapshot } from '../../protocol/runSnapshot';
import type { TeamTaskStatus } from '../../protocol/team';
import { teamModel } from '../team/teamModel';

/** Chat Markdown's escaping (chatLog.ts's, passed in: that module builds this one's log into its own). */
export type Escape = (text: string) => string;

/**
 * What a team run adds to the chat's log as it goes: each task as it is
 * created and each time its status or owner changes, and each teammate as
 * it goes idle (with what it said). The agents' own lines (their tools,
 * their SendMessage calls naming both teammates) come from ChatRunLog.
 */

const STATUS_WORDS: Record<TeamTaskStatus, string> = { pending: 'pending', in_progress: 'in progress', completed: 'completed' };

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export class TeamChatLog {
  constructor(private readonly escapeMarkdown: Escape) {}

  /** Each task as last told: its status and owner. */
  readonly #tasks = new Map<string, string>();
  /** How many rests of each teammate have been told. */
  readonly #rests = new Map<string, number>();

  /** Takes the run as already told (a follow-up's response tells only what happens from now on). */
  prime(run: RunSnapshot): void {
    this.update(run);
  }

  update(run: RunSnapshot): string[] {
    const escapeMarkdown = this.escapeMarkdown;
    const model = teamModel(run);
    if (!model) return [];
    const lines: string[] = [];
    for (const task of model.tasks) {
      const state = `${task.status}|${task.owner ?? ''}`;
      const before = this.#tasks.get(task.id);
      if (before === state) continue;
      this.#tasks.set(task.id, state);
      const owner = task.owner ? ` · ${escapeMarkdown(task.owner)}` : '';
      const waits = task.blockedBy.length && task.status === 'pending' ? ` · waits for ${task.blockedBy.map((b) => `#${b}`).join(', ')}` : '';
      const what = before === undefined ? `new task #${task.id} _${escapeMarkdown(clip(task.subject, 100))}_ (${STATUS_WORDS[task.status]}${owner}${waits})` : `task #${task.id} ${STATUS_WORDS[task.status]}${owner}`;
      lines.push(`▪ ${what}`);
    }
    for (const member of model.roster) {
      if (member.role !== 'member' || !member.agentId) continue;
      // Counted, not sampled: a teammate that rested and was woken between two looks still shows it rested.
      if ((this.#rests.get(member.agentId) ?? 0) >= member.rests) continue;
      this.#rests.set(member.agentId, member.rests);
      const said = member.restedSaying ? `: “${escapeMarkdown(clip(member.restedSaying, 160))}”` : '';
      lines.push(`◌ **${escapeMarkdown(member.name)}** ${member.state === 'idle' ? 'is idle' : member.state === 'ended' ? 'went idle' : 'went idle, and was woken'}${said}`);
    }
    return lines;
  }
}

/** The team part of the chat's closing summary: the task list as it ended. */
export function teamSummary(run: RunSnapshot, escapeMarkdown: Escape): string {
  const model = teamModel(run);
  if (!model?.tasks.length) return '';
  const mark: Record<TeamTaskStatus, string> = { pending: '○', in_progress: '●', completed: '✓' };
  return [
    `**Tasks** (${model.counts.tasks}, ${model.counts.completed} completed) — team ${escapeMarkdown(model.name)}`,
    '',
    ...model.tasks.map((t) => `- #${t.id} ${mark[t.status]} ${escapeMarkdown(t.subject)}${t.owner ? ` · ${escapeMarkdown(t.owner)}` : ''}${t.blockedBy.length ? ` · waits for ${t.blockedBy.map((b) => `#${b}`).join(', ')}` : ''}`),
  ].join('\n');
}
