import { TEAM_TASK_STATUSES, type TeamTaskStatus } from '../../src/protocol/team';
import type { AgentAction, TeamView } from '../../src/protocol/webview';
import { TEAMMATE_DISPLAY } from '../../src/protocol/statusDisplay';
import { codicon, el, textButton } from './dom';
import { formatCost, formatTokens } from './format';
import type { RowContext } from './rowContext';

/**
 * A team run's panel, above its tree: the roster (the lead and each
 * teammate in one of the four states — working, needs approval, idle,
 * ended — with its model, usage, worktree and changes, and buttons to
 * message, stop, review and apply it), the task board (tasks by status,
 * each with its owner and what still blocks it) and the messages between
 * teammates in the order they were sent. Everything wraps: at 250 px the
 * lines break rather than cut off what matters.
 */

export interface TeamPanelContext extends RowContext {
  /** Opens the message box of a teammate (under its row in the tree). */
  messageTo(agentId: string): void;
}

type RosterEntry = TeamView['roster'][number];

const TASK_TITLES: Record<TeamTaskStatus, string> = { pending: 'Pending', in_progress: 'In progress', completed: 'Completed' };
const TASK_ICONS: Record<TeamTaskStatus, string> = { pending: 'circle-large-outline', in_progress: 'circle-large-filled', completed: 'pass-filled' };

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function section(title: string, testId: string, children: Array<HTMLElement | null>): HTMLElement {
  const heading = el('div', { className: 'team-heading', text: title });
  const box = el('div', { className: 'team-section', testId, role: 'group' }, [heading, ...children]);
  box.setAttribute('aria-label', title);
  return box;
}

function rosterButtons(entry: RosterEntry, ctx: TeamPanelContext): HTMLElement | null {
  if (!entry.agentId) return null;
  const id = entry.agentId;
  const act = (action: AgentAction) => () => ctx.post({ type: 'agentAction', action, agentId: id });
  const button = (label: string, testId: string, onClick: () => void, icon: string) => {
    const b = textButton('', testId, onClick, 'icon-button team-button');
    b.append(codicon(icon));
    b.title = label;
    b.setAttribute('aria-label', label);
    return b;
  };
  const atWork = entry.state !== 'ended' && entry.state !== 'not started';
  const wt = entry.worktree;
  return el('span', { className: 'team-actions' }, [
    entry.state !== 'not started' ? button(`Message ${entry.name}`, `team-message-${id}`, () => ctx.messageTo(id), 'mail') : null,
    atWork ? button(`Stop ${entry.name}`, `team-stop-${id}`, act('stop'), 'debug-stop') : null,
    wt && (wt.state === 'finished' || wt.state === 'applied') ? button(`Review ${entry.name}'s changes`, `team-review-${id}`, act('reviewWorktree'), 'diff-multiple') : null,
    wt?.state === 'finished' ? button(`Apply ${entry.name}'s changes to your working tree`, `team-apply-${id}`, act('applyWorktree'), 'check') : null,
  ]);
}

function worktreeText(wt: NonNullable<RosterEntry['worktree']>): string {
  if (wt.state === 'active') return 'in its own worktree';
  if (wt.state === 'discarded') return 'no changes kept';
  const files = plural(wt.filesChanged ?? 0, 'file');
  return `${files} ${wt.state === 'applied' ? 'applied' : 'changed'} (+${wt.insertions} −${wt.deletions})`;
}

function rosterEntry(entry: RosterEntry, ctx: TeamPanelContext): HTMLElement {
  const usage = [formatTokens(entry.tokens), formatCost(entry.costUsd)].filter(Boolean).join(' · ');
  const icon = codicon(TEAMMATE_DISPLAY[entry.state].codicon, `team-state state-${entry.state.replace(' ', '-')}${entry.state === 'working' ? ' codicon-modifier-spin' : ''}`);
  icon.setAttribute('aria-hidden', 'true');
  // One line that never wraps: the name gives way (its whole is the tooltip), the state and the buttons do not.
  const head = el('div', { className: 'team-line' }, [
    icon,
    el('span', { className: 'team-name', text: entry.name, title: entry.name }),
    el('span', { className: `team-state-word state-${entry.state.replace(' ', '-')}`, text: TEAMMATE_DISPLAY[entry.state].label }),
    rosterButtons(entry, ctx),
  ]);
  // The lead goes by its agent's name already: it says it leads instead.
  const facts = [entry.role === 'lead' ? 'lead' : entry.agent, entry.model, usage].filter(Boolean).join(' · ');
  const wt = entry.worktree;
  const row = el('div', { className: `team-member state-${entry.state.replace(' ', '-')}`, testId: `team-member-${entry.name}` }, [
    head,
    el('div', { className: 'team-sub', text: facts }),
    wt ? el('div', { className: 'team-sub team-worktree', title: `branch ${wt.branch}` }, [codicon('git-branch'), el('span', { text: worktreeText(wt) })]) : null,
    entry.said ? el('div', { className: 'team-sub team-said', text: `“${entry.said}”`, title: entry.said }) : null,
  ]);
  row.setAttribute('aria-label', `${entry.name}, ${entry.role === 'lead' ? 'lead, ' : ''}${TEAMMATE_DISPLAY[entry.state].label}; ${facts}${wt ? `; ${worktreeText(wt)}` : ''}`);
  return row;
}

function taskBoard(team: TeamView): HTMLElement {
  if (team.tasks.length === 0) return section('Tasks', 'team-tasks', [el('div', { className: 'team-sub', text: 'No tasks yet.' })]);
  const columns = TEAM_TASK_STATUSES.map((status) => {
    const tasks = team.tasks.filter((t) => t.status === status);
    if (tasks.length === 0) return null;
    return el('div', { className: `team-column status-${status}`, testId: `team-column-${status}` }, [
      el('div', { className: 'team-column-title', text: `${TASK_TITLES[status]} (${tasks.length})` }),
      ...tasks.map((t) => {
        const extras = [t.owner ? t.owner : 'unowned', t.blockedBy.length ? `waits for ${t.blockedBy.map((b) => `#${b}`).join(', ')}` : null].filter(Boolean).join(' · ');
        const icon = codicon(TASK_ICONS[status], `task-icon status-${status}`);
        const line = el('div', { className: 'team-task', testId: `team-task-${t.id}` }, [
          icon,
          el('span', { className: 'task-id', text: `#${t.id}` }),
          el('span', { className: 'task-subject', text: t.subject }),
          el('span', { className: `task-extras${t.blockedBy.length ? ' blocked' : ''}`, text: extras }),
        ]);
        line.setAttribute('aria-label', `Task ${t.id}, ${TASK_TITLES[status].toLowerCase()}: ${t.subject}; ${extras}`);
        return line;
      }),
    ]);
  });
  const done = team.tasks.filter((t) => t.status === 'completed').length;
  return section(`Tasks · ${done} of ${team.tasks.length} completed`, 'team-tasks', columns);
}

function messageList(team: TeamView): HTMLElement | null {
  if (team.messages.length === 0) return null;
  return section('Messages', 'team-messages', [
    team.olderMessages ? el('div', { className: 'team-sub', text: `${plural(team.olderMessages, 'earlier message')} (in the transcripts)` }) : null,
    ...team.messages.map((m) => {
      const line = el('div', { className: `team-message${m.delivered ? '' : ' waiting'}`, testId: `team-message-${m.id}`, title: m.text }, [
        el('span', { className: 'message-route', text: `${m.from} → ${m.to}` }),
        el('span', { className: 'message-text', text: m.text }),
        m.delivered ? null : el('span', { className: 'message-state', text: 'not read yet' }),
      ]);
      line.setAttribute('aria-label', `Message from ${m.from} to ${m.to}: ${m.text}${m.delivered ? '' : ', not read yet'}`);
      return line;
    }),
  ]);
}

/** The panel of one team run; rebuilt when the team's view changes (it is small), keeping its folding. */
export function teamPanel(runId: string, team: TeamView, defaultOpen: boolean, ctx: TeamPanelContext): HTMLElement {
  const key = `team:${runId}`;
  const open = ctx.expanded(key, defaultOpen);
  const members = team.roster.filter((r) => r.role === 'member');
  const idle = members.filter((m) => m.state === 'idle').length;
  const working = members.filter((m) => m.state === 'working' || m.state === 'waiting').length;
  const done = team.tasks.filter((t) => t.status === 'completed').length;
  const summary = [plural(members.length, 'member'), working ? `${working} working` : null, idle ? `${idle} idle` : null, team.tasks.length ? `tasks ${done}/${team.tasks.length}` : null].filter(Boolean).join(' · ');
  const appliable = members.filter((m) => m.worktree?.state === 'finished').length;
  const toggle = el('button', { className: 'team-toggle', testId: `team-toggle-${runId}` }, [
    codicon(open ? 'chevron-down' : 'chevron-right'),
    codicon('organization'),
    el('span', { className: 'team-title', text: `Team ${team.name}` }),
    el('span', { className: 'team-summary', text: summary }),
  ]);
  toggle.type = 'button';
  toggle.setAttribute('aria-expanded', String(open));
  const panel = el('div', { className: 'team-panel', testId: `team-${runId}` }, [
    el('div', { className: 'team-bar' }, [
      toggle,
      appliable > 1 ? textButton(`Apply All (${appliable})`, `team-apply-all-${runId}`, () => ctx.post({ type: 'teamAction', action: 'applyAll', runId }), 'link-button') : null,
    ]),
  ]);
  toggle.addEventListener('click', (e) => {
    e.stopPropagation();
    ctx.remember(key, !open);
    panel.replaceWith(teamPanel(runId, team, defaultOpen, ctx));
  });
  toggle.addEventListener('keydown', (e) => e.stopPropagation());
  if (open) {
    panel.append(
      section('Roster', 'team-roster', team.roster.map((entry) => rosterEntry(entry, ctx))),
      taskBoard(team),
      ...[messageList(team)].filter((x): x is HTMLElement => x !== null),
    );
  }
  return panel;
}
