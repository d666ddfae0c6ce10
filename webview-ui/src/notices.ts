import type { Notice, WebviewToHost } from '../../src/protocol/webview';
import { codicon, el, textButton } from './dom';

/** Notices above the runs: why nothing can run, a missing API key, worktrees kept from interrupted runs. */
export function renderNotices(notices: Notice[], post: (message: WebviewToHost) => void): HTMLElement | null {
  if (notices.length === 0) return null;
  return el(
    'div',
    { className: 'notices', testId: 'notices', role: 'status' },
    notices.map((n) => {
      const action = n.action;
      const button = action ? textButton(action.label, `notice-action-${n.id}`, () => post({ type: 'command', command: action.command }), 'link-button') : null;
      return el('div', { className: `notice ${n.level}`, testId: `notice-${n.id}` }, [
        codicon(n.level === 'warning' ? 'warning' : 'info'),
        el('span', { className: 'notice-text', text: n.text }),
        button,
      ]);
    }),
  );
}
