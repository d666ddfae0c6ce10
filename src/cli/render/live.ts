import type { RunStore } from '../../core/runs/runStore';
import type { RunEvent } from '../../protocol/runEvents';
import { formatWait } from '../../core/engine/loop/network';
import { terminalLine } from './terminalText';
import { toolLabel } from '../../protocol/tools';
import { agentLine, messageLine, renderTree, type Style } from './tree';

/**
 * Terminal renderers for `subagents run` without --json. On a TTY the tree
 * is redrawn in place as the store changes (and every 250 ms while running,
 * for the clocks); elsewhere (CI logs, pipes) progress is printed as
 * append-only lines and the final tree once at the end.
 */

export interface Renderer {
  event(event: RunEvent): void;
  stop(): void;
}

interface Out {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

export class LiveTreeRenderer implements Renderer {
  #lines = 0;
  #paused = false;
  #timer: NodeJS.Timeout;
  #unsubscribe: () => void;

  constructor(
    private readonly out: Out,
    private readonly store: RunStore,
    private readonly runId: () => string | null,
    private readonly style: Style,
  ) {
    this.#unsubscribe = store.subscribe(() => this.#draw());
    this.#timer = setInterval(() => this.#draw(), 250);
    this.out.write('\x1b[?25l');
  }

  event(): void {}

  #frame(): string[] {
    const id = this.runId();
    const run = id ? this.store.get(id) : undefined;
    if (!run) return [];
    const width = Math.max(40, (this.out.columns ?? 100) - 1);
    const lines = renderTree(run, { style: this.style, width });
    const room = Math.max(5, (this.out.rows ?? 40) - 2);
    return lines.length > room ? [this.style.dim(`… ${lines.length - room} more lines above`), ...lines.slice(-room + 1)] : lines;
  }

  /** Stops drawing (while a question is asked on the terminal). */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#lines = 0;
    this.#draw();
  }

  #draw(): void {
    if (this.#paused) return;
    const lines = this.#frame();
    const erase = this.#lines ? `\x1b[${this.#lines}F\x1b[0J` : '';
    this.out.write(`${erase}${lines.join('\n')}${lines.length ? '\n' : ''}`);
    this.#lines = lines.length;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#unsubscribe();
    this.#paused = false;
    this.store.flush();
    this.#draw();
    this.out.write('\x1b[?25h');
  }
}

export class LogRenderer implements Renderer {
  constructor(
    private readonly out: Out,
    private readonly store: RunStore,
    private readonly runId: () => string | null,
    private readonly style: Style,
  ) {}

  event(event: RunEvent): void {
    const node = this.store.agent(event.agentId);
    if (!node) return;
    const indent = '  '.repeat(node.depth);
    switch (event.type) {
      case 'agent_started':
        this.out.write(`${indent}▶ ${terminalLine(node.agentName)}${node.depth ? ` · ${terminalLine(node.description)}` : ''} · ${terminalLine(node.model)}\n`);
        break;
      case 'tool_finished': {
        const row = node.tools.findLast((t) => t.toolUseId === event.toolUseId);
        this.out.write(
          `${indent}  ${event.ok ? '✓' : '✕'} ${terminalLine(toolLabel(row ?? event))} ${terminalLine(row?.inputSummary ?? '')}${event.resultSummary ? ` · ${terminalLine(event.resultSummary)}` : ''}\n`,
        );
        break;
      }
      case 'notice':
        this.out.write(`${indent}  ⚠ ${terminalLine(event.message)}\n`);
        break;
      case 'message_queued': {
        const message = node.messages?.find((m) => m.messageId === event.messageId);
        if (message) this.out.write(`${indent}  ${messageLine(message, true, this.style)}\n`);
        break;
      }
      case 'retry':
        this.out.write(`${indent}  ↻ ${terminalLine(event.reason)}; retrying in ${formatWait(event.delayMs)} (attempt ${event.attempt + 1})\n`);
        break;
      case 'agent_finished':
        this.out.write(`${indent}${agentLine(node, Date.now(), this.style)}\n`);
        break;
    }
  }

  stop(): void {
    this.store.flush();
    const id = this.runId();
    const run = id ? this.store.get(id) : undefined;
    if (run) this.out.write(`\n${renderTree(run, { style: this.style, width: 160 }).join('\n')}\n`);
  }
}
