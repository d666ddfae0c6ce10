import { isActiveStatus } from '../../src/protocol/vocabulary';
import { MAX_MESSAGE_LENGTH, type AgentView, type MessageView, type WebviewToHost } from '../../src/protocol/webview';
import { codicon, el, textButton } from './dom';

/**
 * Talking to an agent from the Runs view: the messages sent to it, listed
 * under its row (who wrote to whom, and whether it has read them yet), and
 * the message box that opens under a running agent's row (its ✉ button, or
 * the M key on its item). A message is read at the agent's next turn; one
 * sent to an agent that has ended meanwhile continues it.
 */

function route(message: MessageView, agent: AgentView): string {
  if (message.kind === 'result') return `result of ${message.from ?? 'a child'} → ${agent.name}`;
  return `${message.from ?? 'You'} → ${agent.name}`;
}

/** The messages under an agent's row; null when it has none. */
export function messageLines(agent: AgentView): HTMLElement | null {
  if (agent.messages.length === 0) return null;
  const atWork = isActiveStatus(agent.status);
  return el(
    'div',
    { className: 'messages', testId: `messages-${agent.id}` },
    agent.messages.map((m) => {
      const waiting = m.delivered ? '' : atWork ? 'waiting for its next turn' : 'read when it is continued';
      const line = el('div', { className: `subline message${m.delivered ? '' : ' waiting'}`, testId: `message-${m.id}`, title: m.text }, [
        codicon(m.kind === 'result' ? 'reply' : 'mail'),
        el('span', { className: 'message-route', text: `${route(m, agent)}:` }),
        el('span', { className: 'message-text', text: m.text }),
        waiting ? el('span', { className: 'message-state', text: waiting }) : null,
      ]);
      line.setAttribute('aria-label', `Message ${route(m, agent)}: ${m.text}${waiting ? `, ${waiting}` : ''}`);
      return line;
    }),
  );
}

interface OpenBox {
  box: HTMLElement;
  input: HTMLTextAreaElement;
  hint: HTMLElement;
}

/**
 * The open message boxes, one per agent at most. A box lives beside its
 * agent's row, not in it: the tree rebuilds a row whenever what it shows
 * changes, and a draft must outlive that.
 */
export class MessageBoxes {
  readonly #open = new Map<string, OpenBox>();

  constructor(private readonly post: (message: WebviewToHost) => void) {}

  isOpen(agentId: string): boolean {
    return this.#open.has(agentId);
  }

  /** Opens the agent's box (focusing it) or closes it; `item` is the agent's tree item. */
  toggle(agent: AgentView, item: HTMLElement | null): void {
    if (this.#open.has(agent.id)) return this.#close(agent.id, item);
    const open = this.#create(agent, item);
    this.#open.set(agent.id, open);
    if (item) this.place(item, agent);
    open.input.focus();
  }

  /** Keeps an agent's open box right under its row after the tree rendered it; the hint follows its state. */
  place(item: HTMLElement, agent: AgentView): void {
    const open = this.#open.get(agent.id);
    if (!open) return;
    open.hint.textContent = hintFor(agent);
    const row = item.querySelector<HTMLElement>(':scope > .row');
    if (row && open.box.previousElementSibling !== row) row.after(open.box);
  }

  #create(agent: AgentView, item: HTMLElement | null): OpenBox {
    const input = el('textarea', { className: 'message-input', testId: `message-input-${agent.id}` });
    input.rows = 2;
    input.maxLength = MAX_MESSAGE_LENGTH;
    input.placeholder = `Message ${agent.name}…`;
    input.setAttribute('aria-label', `Message to ${agent.name}`);
    input.title = 'Enter sends, Shift+Enter starts a new line, Escape closes';
    const hint = el('div', { className: 'message-hint', text: hintFor(agent) });
    const send = () => {
      const text = input.value.trim();
      if (!text) return;
      this.post({ type: 'sendMessage', agentId: agent.id, text });
      this.#close(agent.id, item);
    };
    input.addEventListener('keydown', (e) => {
      // The tree's keys (arrows, Enter, Space) are the text's here.
      e.stopPropagation();
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        send();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        this.#close(agent.id, item);
      }
    });
    // A click in the box is not a click on the row (which opens the transcript).
    const box = el('div', { className: 'message-box', testId: `message-box-${agent.id}`, role: 'group' }, [
      input,
      el('div', { className: 'message-box-footer' }, [
        hint,
        textButton('Send', `message-send-${agent.id}`, send, 'text-button primary'),
        textButton('Cancel', `message-cancel-${agent.id}`, () => this.#close(agent.id, item)),
      ]),
    ]);
    box.addEventListener('click', (e) => e.stopPropagation());
    box.setAttribute('aria-label', `Message to ${agent.name}`);
    return { box, input, hint };
  }

  #close(agentId: string, item: HTMLElement | null): void {
    const open = this.#open.get(agentId);
    if (!open) return;
    this.#open.delete(agentId);
    const hadFocus = open.box.contains(document.activeElement);
    open.box.remove();
    if (hadFocus) item?.focus();
  }
}

function hintFor(agent: AgentView): string {
  return isActiveStatus(agent.status) ? 'Read at its next turn · Enter sends' : `${agent.name} has ended: this continues it`;
}
