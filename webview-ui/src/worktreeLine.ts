import type { AgentAction, AgentView } from '../../src/protocol/webview';
import { codicon, el, textButton } from './dom';
import { moreButton, type RowContext } from './rowContext';

/**
 * What an isolated agent left, and what to do with it, on one line under its
 * row: "2 files changed +9 −1 · Review · Apply ⋯". The counts give way
 * before the actions do, so Review and Apply are never cut off at the
 * default sidebar width; the ⋯ opens the row's menu (discard, apply some
 * files, the branch). The branch name is the line's tooltip.
 */

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function worktreeLine(agent: AgentView, ctx: RowContext): HTMLElement | null {
  const wt = agent.worktree;
  if (!wt) return null;
  const act = (action: AgentAction) => () => ctx.post({ type: 'agentAction', action, agentId: agent.id });
  const link = (label: string, action: AgentAction) => {
    const button = textButton(label, `action-${action}-${agent.id}`, act(action), 'link-button');
    // Like the row's other buttons: in the tab order while the row has focus (tree.ts).
    button.tabIndex = -1;
    return button;
  };
  const files = wt.filesChanged ?? 0;
  let summary: string;
  let actions: Array<HTMLElement | null> = [];
  switch (wt.state) {
    case 'active':
      summary = 'working in an isolated worktree';
      break;
    case 'discarded':
      summary = 'changes discarded';
      break;
    case 'applied':
      summary = `${plural(files, 'file')} applied`;
      actions = [link('Review', 'reviewWorktree'), moreButton(`More actions for ${agent.name}'s changes`, `worktree-more-${agent.id}`)];
      break;
    case 'finished':
      summary = `${plural(files, 'file')} changed${wt.applied ? `, ${wt.applied} applied` : ''}`;
      actions = [link('Review', 'reviewWorktree'), link('Apply', 'applyWorktree'), moreButton(`More actions for ${agent.name}'s changes`, `worktree-more-${agent.id}`)];
      break;
  }
  const counts = wt.state === 'finished' || wt.state === 'applied' ? el('span', { className: 'counts', text: `+${wt.insertions} −${wt.deletions}` }) : null;
  const line = el('div', { className: `subline worktree state-${wt.state}`, testId: `worktree-${agent.id}`, title: `Branch ${wt.branch}` }, [
    codicon('git-branch'),
    el('span', { className: 'summary', text: summary }),
    counts,
    ...actions,
  ]);
  line.setAttribute('aria-label', `${summary}${counts ? ` (${counts.textContent})` : ''} on branch ${wt.branch}`);
  return line;
}
