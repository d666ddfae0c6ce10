import type { AgentView, WebviewToHost } from '../../src/protocol/webview';
import { codicon, el } from './dom';

/** What a row's parts need from the view: a way to the host, the clock, and the user's folding choices. */
export interface RowContext {
  post(message: WebviewToHost): void;
  /** Opens or closes the agent's message box (messages.ts). */
  message?(agent: AgentView): void;
  /** Host clock minus webview clock, for elapsed times. */
  clockOffset(): number;
  /** The user's choice for a node, or `byDefault`. */
  expanded(key: string, byDefault: boolean): boolean;
  /** Records the user's choice for a node (it survives re-renders and the view being hidden). */
  remember(key: string, expanded: boolean): void;
}

/**
 * What VS Code's native context menu of an agent's row offers is decided by
 * package.json (`webview/context`, on these keys); the menu's commands get
 * this object as their argument. Closer elements win over their ancestors,
 * so a nested agent's row gets its own menu.
 */
export function agentMenuContext(agent: AgentView): string {
  const active = agent.status === 'running' || agent.status === 'queued' || agent.status === 'waiting' || agent.status === 'idle';
  return JSON.stringify({
    webviewSection: 'agent',
    agentId: agent.id,
    agentActive: active,
    worktree: agent.worktree?.state ?? 'none',
    hasDefinition: Boolean(agent.filePath),
    preventDefaultContextMenuItems: true,
  });
}

export function toolMenuContext(ownerId: string): string {
  return JSON.stringify({ webviewSection: 'tool', agentId: ownerId, preventDefaultContextMenuItems: true });
}

/**
 * Opens the native context menu of the row that holds `from`, below it: the
 * webview host shows VS Code's menu for any `contextmenu` event in the page
 * (it reads the nearest `data-vscode-context`), so the overflow button and
 * the menu key reach the very same menu as a right click.
 */
export function openRowMenu(from: HTMLElement): void {
  const rect = from.getBoundingClientRect();
  from.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: Math.round(rect.left), clientY: Math.round(rect.bottom) }));
}

/** The ⋯ button: every action of the row, in its context menu. */
export function moreButton(label: string, testId: string): HTMLButtonElement {
  const button = el('button', { className: 'icon-button more', title: label, testId }, [codicon('ellipsis')]);
  button.type = 'button';
  button.tabIndex = -1;
  button.setAttribute('aria-label', label);
  button.setAttribute('aria-haspopup', 'menu');
  button.addEventListener('click', (e) => {
    e.stopPropagation();
    openRowMenu(button);
  });
  button.addEventListener('keydown', (e) => {
    e.stopPropagation();
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      openRowMenu(button);
    }
  });
  return button;
}
