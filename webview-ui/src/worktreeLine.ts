import type { AgentAction, AgentView } from '../../src/protocol/webview';
import { codicon, el, textButton } from './dom';
import { moreButton, type RowContext } from './rowContext';

/**
 * What an isolated agent left, and what to do with it, on one line under its
 * row: "2 files changed · Review · Apply ⋯" ("2 files · Review · Apply ⋯" in
 * a narrow sidebar), never cut off: where even that has no room (a deeply
 * nested agent), the actions move to a line of their own. The ⋯ opens the
 * row's menu (discard, apply or discard some files). The lines added and
 * removed and the branch are the tooltip.
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
  let words: [string, string, string] | null = null;
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
      // "changed" is the word a narrow sidebar drops (style.css), so the count stays whole beside the actions.
      words = [plural(files, 'file'), ' changed', wt.applied ? `, ${wt.applied} applied` : ''];
      actions = [link('Review', 'reviewWorktree'), link('Apply', 'applyWorktree'), moreButton(`More actions for ${agent.name}'s changes`, `worktree-more-${agent.id}`)];
      break;
  }
  // The line counts files; the lines added and removed are in its tooltip (and the review's title), so the actions keep their room.
  const counts = wt.state === 'finished' || wt.state === 'applied' ? ` (+${wt.insertions} −${wt.deletions})` : '';
  const line = el('div', { className: `subline worktree state-${wt.state}`, testId: `worktree-${agent.id}`, title: `${summary}${counts} on branch ${wt.branch}` }, [
    codicon('git-branch'),
    words ? el('span', { className: 'summary' }, [document.createTextNode(words[0]), el('span', { className: 'summary-verb', text: words[1] }), document.createTextNode(words[2])]) : el('span', { className: 'summary', text: summary }),
    ...actions,
  ]);
  line.setAttribute('aria-label', `${summary}${counts} on branch ${wt.branch}`);
  return line;
}
