import type { AgentView } from '../../src/protocol/webview';
import { codicon, el } from './dom';
import type { RowContext } from './rowContext';

/**
 * What an ended agent answered, folded under its row as one "Result" line
 * (its first line as a preview); unfolded, the whole answer as plain text,
 * scrollable. The text is the model's: it is set as text, never as markup.
 */

/** The first line with words in it, without the Markdown marks a heading, quote or list item starts with. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => /\w/.test(l)) ?? '';
  return line.replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)*/, '').trim();
}

export function resultLine(agent: AgentView, ctx: RowContext): HTMLElement | null {
  const result = agent.result;
  if (!result) return null;
  const key = `result:${agent.id}`;
  const open = ctx.expanded(key, false);
  const preview = el('span', { className: 'result-preview', text: firstLine(result) });
  const chevron = codicon(open ? 'chevron-down' : 'chevron-right', 'result-chevron');
  const toggle = el('button', { className: 'result-toggle', testId: `result-toggle-${agent.id}` }, [chevron, el('span', { className: 'result-label', text: 'Result' }), preview]);
  toggle.type = 'button';
  // Like the row's other buttons: in the tab order while the row has focus (tree.ts).
  toggle.tabIndex = -1;
  const body = el('div', { className: 'result-text', testId: `result-${agent.id}`, text: result });
  body.setAttribute('role', 'region');
  body.setAttribute('aria-label', `${agent.name}'s result`);
  const set = (next: boolean) => {
    toggle.setAttribute('aria-expanded', String(next));
    body.hidden = !next;
    preview.hidden = next;
    chevron.classList.toggle('codicon-chevron-down', next);
    chevron.classList.toggle('codicon-chevron-right', !next);
  };
  set(open);
  toggle.addEventListener('click', (e) => {
    e.stopPropagation();
    const next = toggle.getAttribute('aria-expanded') !== 'true';
    ctx.remember(key, next);
    set(next);
  });
  toggle.addEventListener('keydown', (e) => e.stopPropagation());
  return el('div', { className: 'subline result' }, [toggle, body]);
}
