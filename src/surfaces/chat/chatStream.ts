import type { RunStore } from '../../core/runs/runStore';
import { ANSWER_LABELS, APPROVAL_ANSWERS } from '../../protocol/webview';
import { ChatRunLog, type ChatPart } from './chatLog';

/**
 * Streams one run into one chat response at a calm pace: however fast the
 * run's events come, the response gets at most about ten writes a second.
 * Each look at the run produces the log parts of what changed (ChatRunLog);
 * they go out together, consecutive Markdown merged into one write, and
 * every write delays the next look by a tenth of a second. Plain code over a
 * sink, so the benchmark and the tests drive it without VS Code.
 */

/** The writes a chat response offers (vscode.ChatResponseStream, or a recorder). */
export interface ChatSink {
  markdown(text: string): void;
  progress(text: string): void;
  reference(filePath: string): void;
  /** A button that runs `command` with `args`. */
  button(title: string, command: string, args: unknown[]): void;
}

/** The budget: one write per this many milliseconds, on average. */
export const MS_PER_WRITE = 100;
/** Never look more often than this, even when a look wrote nothing. */
const MIN_LOOK_INTERVAL_MS = 100;
/** References (files read or changed) written per look; the rest wait for later looks. */
const REFERENCES_PER_LOOK = 1;
/** References one response lists at most; a run that reads hundreds of files says how many more. */
export const MAX_REFERENCES = 50;
/**
 * The progress line is written once the log has been quiet this long. VS Code
 * draws progress as a part of its own, which would cut the log into loose
 * paragraphs if it went between every two lines; while lines keep coming they
 * say what is happening anyway.
 */
const QUIET_FOR_PROGRESS_MS = 600;

/** An approval's answers, as every surface offers them. */
export const APPROVAL_BUTTONS = APPROVAL_ANSWERS.map((answer) => [ANSWER_LABELS[answer], answer] as const);

/**
 * The sink of a response the user can stop: quiet once `stopped()` says so
 * (VS Code drops what a participant writes after a cancellation, and closes
 * the stream a second later, after which every write throws), and quiet for
 * good once a write has thrown, so a timer never throws into the host.
 */
export function stoppableSink(sink: ChatSink, stopped: () => boolean): ChatSink {
  let open = true;
  const guard = (write: () => void) => {
    if (!open || stopped()) return;
    try {
      write();
    } catch {
      open = false;
    }
  };
  return {
    markdown: (text) => guard(() => sink.markdown(text)),
    progress: (text) => guard(() => sink.progress(text)),
    reference: (filePath) => guard(() => sink.reference(filePath)),
    button: (title, command, args) => guard(() => sink.button(title, command, args)),
  };
}

export class ChatRunStream {
  readonly log = new ChatRunLog();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #quietTimer: ReturnType<typeof setTimeout> | null = null;
  #dirty = false;
  #nextLookAt = 0;
  /** The newest progress text, and the one last written. */
  #progress = '';
  #progressWritten = '';
  /** Files to reference, in the order they were touched; how many were written, how many dropped over the cap. */
  readonly #references: string[] = [];
  #referenced = 0;
  #referencesDropped = 0;
  readonly #unsubscribe: () => void;
  private readonly now: () => number;

  /** With `prime`, what the run holds already is not told again (a follow-up to one of its agents). */
  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly sink: ChatSink,
    options: { prime?: boolean; now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
    const current = options.prime ? store.get(runId) : undefined;
    if (current) this.log.prime(current);
    this.#unsubscribe = store.subscribe((changed) => {
      if (changed.has(runId)) this.#schedule();
    });
    this.#schedule();
  }

  #schedule(): void {
    this.#dirty = true;
    if (this.#timer) return;
    const wait = Math.max(0, this.#nextLookAt - this.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#look();
    }, wait);
  }

  #look(): void {
    if (!this.#dirty) return;
    this.#dirty = false;
    const run = this.store.get(this.runId);
    const written = run ? this.#write(this.log.update(run)) : 0;
    this.#nextLookAt = this.now() + Math.max(MIN_LOOK_INTERVAL_MS, written * MS_PER_WRITE);
  }

  /** Writes the progress line if it changed; returns how many writes that took. */
  #writeProgress(): number {
    if (!this.#progress || this.#progress === this.#progressWritten) return 0;
    this.#progressWritten = this.#progress;
    this.sink.progress(this.#progress);
    // Paid for like any write: it delays the next look.
    this.#nextLookAt = Math.max(this.#nextLookAt, this.now()) + MS_PER_WRITE;
    return 1;
  }

  /** Writes parts; returns how many writes that took. `final`: the run ended, write every reference left. */
  #write(parts: ChatPart[], final = false): number {
    const progress = parts.find((p) => p.kind === 'progress');
    this.#progress = progress?.kind === 'progress' ? progress.text : '';
    for (const part of parts) {
      if (part.kind !== 'reference') continue;
      if (this.#referenced + this.#references.length < MAX_REFERENCES) this.#references.push(part.filePath);
      else this.#referencesDropped++;
    }
    const content: ChatPart[] = parts.filter((p) => p.kind !== 'progress' && p.kind !== 'reference');
    for (const filePath of this.#references.splice(0, final ? this.#references.length : REFERENCES_PER_LOOK)) content.push({ kind: 'reference', filePath });
    this.#referenced += content.filter((p) => p.kind === 'reference').length;
    if (final && this.#referencesDropped) content.push({ kind: 'markdown', text: `_…and ${this.#referencesDropped} more files read or changed._  \n` });
    if (content.length === 0) return this.#writeProgress();
    if (this.#quietTimer) clearTimeout(this.#quietTimer);
    this.#quietTimer = setTimeout(() => {
      this.#quietTimer = null;
      this.#writeProgress();
    }, QUIET_FOR_PROGRESS_MS);
    // After a log line, the same progress text is news again.
    this.#progressWritten = '';
    let written = 0;
    let markdown = '';
    const flushMarkdown = () => {
      if (!markdown) return;
      this.sink.markdown(markdown);
      markdown = '';
      written++;
    };
    for (const part of content) {
      if (part.kind === 'markdown') {
        markdown += part.text;
        continue;
      }
      if (part.kind === 'approval') {
        markdown += `${part.text}\n\n`;
        flushMarkdown();
        for (const [title, answer] of APPROVAL_BUTTONS) {
          this.sink.button(title, 'subagents.answerApproval', [part.approvalId, answer, 'chat']);
          written++;
        }
        continue;
      }
      flushMarkdown();
      if (part.kind === 'reference') this.sink.reference(part.filePath);
      written++;
    }
    flushMarkdown();
    return written;
  }

  /** Writes what is left, right away (the run ended), and stops listening. */
  finish(): void {
    this.dispose();
    this.store.flush();
    const run = this.store.get(this.runId);
    if (run) this.#write(this.log.update(run).filter((p) => p.kind !== 'progress'), true);
    if (this.#quietTimer) clearTimeout(this.#quietTimer);
    this.#quietTimer = null;
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#quietTimer) clearTimeout(this.#quietTimer);
    this.#timer = this.#quietTimer = null;
    this.#unsubscribe();
  }
}
