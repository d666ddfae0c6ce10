import type { AgentView } from '../../src/protocol/webview';
import { codicon, el, textButton } from './dom';
import type { RowContext } from './rowContext';

/**
 * What an ended agent answered, folded under its row as one "Result" line
 * (its first line as a preview); unfolded, the whole answer as formatted
 * text (headings, lists, code), grown to its full height in the view's own
 * scrolling (never a scroll box inside the list), with a way to read it in
 * the transcript. The HTML is the host's rendering of the model's Markdown
 * (safe: see the protocol's `resultHtml`); without it, the text is set as
 * text, never as markup.
 */

/** The first line with words in it, without the Markdown marks it starts with or holds. */
export function firstLine(text: string): string {
  const line = text.split('\n').find((l) => /\w/.test(l)) ?? '';
  return line
    .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)*/, '')
    .replace(/(\*\*|__|`)(.+?)\1/g, '$2')
    .trim();
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
  const body = el('div', { className: 'result-text markdown', testId: `result-${agent.id}` });
  // The host's rendering (markdown-it without raw HTML); nothing of the model's is ever parsed as markup here.
  if (agent.resultHtml) body.innerHTML = agent.resultHtml;
  else body.textContent = result;
  body.setAttribute('role', 'region');
  body.setAttribute('aria-label', `${agent.name}'s result`);
  const transcript = textButton('Open in Transcript', `result-transcript-${agent.id}`, () => ctx.post({ type: 'agentAction', action: 'transcript', agentId: agent.id }), 'link-button result-open');
  transcript.tabIndex = -1;
  const bodyBox = el('div', { className: 'result-body' }, [body, transcript]);
  const set = (next: boolean) => {
    toggle.setAttribute('aria-expanded', String(next));
    bodyBox.hidden = !next;
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
  // Selecting text in the result is not a click on the row (which opens the transcript).
  bodyBox.addEventListener('click', (e) => e.stopPropagation());
  return el('div', { className: 'subline result' }, [toggle, bodyBox]);
}
