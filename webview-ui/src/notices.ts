import type { Notice, WebviewToHost } from '../../src/protocol/webview';
import { codicon, el, iconButton, textButton } from './dom';

/**
 * Notices above the runs (why nothing can run, a missing API key, the demo
 * model, worktrees kept from interrupted runs): one line each, its full text
 * in the tooltip, its actions as links at the end, and a close button on
 * those the user may dismiss for good.
 */
export function renderNotices(notices: Notice[], post: (message: WebviewToHost) => void): HTMLElement | null {
  if (notices.length === 0) return null;
  return el(
    'div',
    { className: 'notices', testId: 'notices', role: 'status' },
    notices.map((n) => {
      const actions = n.actions.map((action) => textButton(action.label, `notice-action-${n.id}-${action.command}`, () => post({ type: 'command', command: action.command }), 'link-button'));
      const close = n.dismissible ? iconButton('close', 'Dismiss', `notice-dismiss-${n.id}`, () => post({ type: 'dismissNotice', id: n.id })) : null;
      // Always in the tab order, unlike a row's buttons.
      if (close) close.tabIndex = 0;
      return el('div', { className: `notice ${n.level}`, testId: `notice-${n.id}` }, [
        codicon(n.level === 'warning' ? 'warning' : 'info'),
        el('span', { className: 'notice-text', text: n.text, title: n.tooltip }),
        ...actions,
        close,
      ]);
    }),
  );
}
