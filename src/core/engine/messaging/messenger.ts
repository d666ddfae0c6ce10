import type { MessageSender, RunEvent } from '../../../protocol/runEvents';
import { capText, SNAPSHOT_TEXT_CAPS } from '../../../protocol/runSnapshot';
import type { AgentRun } from '../tree/agentRun';
import type { Budget } from '../tree/budget';
import { BusyElsewhereError, EngineError } from '../errors';
import type { InboxItem } from './inbox';
import { alreadyDelivered, deliveredText, mailTime, newMailId, type AgentMailbox, type MailEntry } from './mail';
import { KeyedMutex } from '../../mutex';
import type { ResumeSource } from '../tree/resumeSource';
import { resultEntry } from '../tools/taskTools';
import type { PermissionMode } from '../../tools/permissions';

/**
 * How messages and results reach agents. A message for an agent at
 * work goes into its inbox and is read at its next turn boundary; one for
 * an agent that ended continues it; one for an agent another process runs
 * goes to the mailbox that process watches. A child's result reaches its
 * parent at the parent's next turn; a parent that has ended gets it with
 * its next continuation (or is continued with it, when the child is
 * `blocking`). Every message is in the mailbox before anyone hears it was
 * sent, and leaves it only once it is in the agent's transcript on disk:
 * whatever ends, stops or crashes in between, nothing is lost.
 */

type EventBody = { type: RunEvent['type'] } & Record<string, unknown>;

/** Tries of a send whose target moves between processes meanwhile (it let the run go, then another took it). */
const MAX_SEND_ATTEMPTS = 5;

export interface ContinueOptions {
  signal?: AbortSignal;
  budget?: Budget;
  permissionMode?: PermissionMode;
  /** Passed to the editor's tools the continued agent calls (VS Code: the chat request's tool invocation token). */
  runContext?: unknown;
}

/** What the messenger needs from the engine that owns it. */
export interface MessengerHost {
  readonly mailbox: AgentMailbox;
  /** An agent of this engine: at work, or ended and still kept in memory. */
  find(agentId: string): AgentRun | undefined;
  /** Whether an agent of this run is at work in this engine. */
  works(runId: string): boolean;
  resumable(agentId: string): Promise<ResumeSource>;
  /** Queues a message for a run `owner` works on, if it still does (atomically); null when the run is free now. */
  queueElsewhere(entry: MailEntry, owner: string): Promise<string | null>;
  /**
   * Takes an ended run for this engine to continue, in one step with checking that no other process works on or
   * holds it (then `entry` is queued for that process, which is returned); null: taken, continue it here.
   */
  claim(entry: MailEntry): Promise<string | null>;
  /** A continuation that failed before it began lets the run it claimed go. */
  unclaim(runId: string): Promise<void>;
  /**
   * Continues an ended agent with `prompt`: as a background child of
   * `parent` (which then gets its result), or, without one, as the root of
   * a tree context of its own.
   */
  continueAgent(source: ResumeSource, prompt: string, parent: AgentRun | null, options: ContinueOptions): Promise<AgentRun>;
  publish(runId: string, agentId: string, event: EventBody): void;
  cancel(agentId: string, reason: string): boolean;
  cancelRun(runId: string, reason: string): number;
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

export interface Message {
  text: string;
  /** Null or absent: the user, through a surface. */
  from?: MessageSender;
  /** The surface it comes through (runsView, chat, cli, lm) or `agent`. */
  via: string;
}

export type SendOutcome =
  /** The agent is at work: it reads the message at its next turn boundary. */
  | { delivery: 'queued'; run: AgentRun }
  /** The agent had ended: it was continued with the message. */
  | { delivery: 'continued'; run: AgentRun }
  /** Another process runs the agent's run: the message waits in the mailbox it watches. */
  | { delivery: 'elsewhere'; owner: string };

export class Messenger {
  readonly #host: MessengerHost;
  /** Entries this process has handed to an agent and not acknowledged yet: the watcher must not hand them over twice. */
  readonly #taken = new Set<string>();
  /** Continuations being started (an ended agent woken by what arrived for it). */
  readonly #waking = new Set<Promise<unknown>>();
  /**
   * One continuation of an agent at a time: a message, a follow-up and the
   * mailbox's watcher may each find the same agent ended at once; the second
   * waits, then finds it at work and hands its entry to its inbox.
   */
  readonly #continuing = new KeyedMutex();

  constructor(host: MessengerHost) {
    this.#host = host;
  }

  /** Sends a message to an agent, wherever it is (see SendOutcome). Throws an EngineError when it cannot be reached at all. */
  async send(agentId: string, message: Message, options: ContinueOptions = {}, attempt = 0): Promise<SendOutcome> {
    const text = message.text.trim();
    if (!text) throw new EngineError('The message is empty.');
    const live = this.#host.find(agentId);
    const entry = (runId: string): MailEntry => ({ id: newMailId(), agentId, runId, kind: 'message', text, from: message.from ?? null, via: message.via, sentAt: mailTime() });
    if (live && !live.ended) {
      const posted = await this.#post(entry(live.tree.runId));
      // It may have ended while the message was being written: then the message continues it.
      const continued = this.#hand(live, posted);
      const run = continued && (await continued);
      return run ? { delivery: 'continued', run } : { delivery: 'queued', run: live };
    }
    const outcome = await this.#continuing.run(agentId, async (): Promise<SendOutcome | { again: Error | null }> => {
      // Continued meanwhile (by another message, a follow-up or the watcher): it is at work now.
      if (this.#host.find(agentId)?.ended === false) return { again: null };
      let source: ResumeSource;
      try {
        source = await this.#host.resumable(agentId);
      } catch (error) {
        if (!(error instanceof BusyElsewhereError)) throw error;
        // Queued only if that process still works on the run: otherwise it may have let the run go without seeing the message.
        const owner = await this.#host.queueElsewhere(entry(error.runId), error.owner);
        return owner ? { delivery: 'elsewhere', owner } : { again: error };
      }
      const mail = entry(source.runId);
      // Taken in one step with the look at who holds it: another process continuing it at this moment (a terminal's
      // `send --no-host`) either finds it ours and queues to us, or has it already and gets this message queued.
      const claimed = !this.#host.works(source.runId);
      try {
        if (claimed) {
          const owner = await this.#host.claim(mail);
          if (owner) return { delivery: 'elsewhere', owner };
        }
        const posted = await this.#post(mail);
        return { delivery: 'continued', run: await this.continueWith(source, [posted], '', options) };
      } catch (error) {
        if (claimed) await this.#host.unclaim(source.runId).catch(() => undefined);
        throw error;
      }
    });
    if (!('again' in outcome)) return outcome;
    if (outcome.again && attempt >= MAX_SEND_ATTEMPTS) throw outcome.again;
    return this.send(agentId, message, options, attempt + 1);
  }

  /** Continues an ended agent with a follow-up prompt (and whatever waits for it in the mailbox). */
  followUp(agentId: string, prompt: string, options: ContinueOptions): Promise<AgentRun> {
    return this.#continuing.run(agentId, async () => this.continueWith(await this.#host.resumable(agentId), [], prompt, options));
  }

  /** Puts a message this process hands over itself in the mailbox, so the watcher, seeing its file, does not hand it over again. */
  async #post(entry: MailEntry): Promise<MailEntry> {
    this.#taken.add(entry.id);
    try {
      await this.#host.mailbox.post(entry);
    } catch (error) {
      this.#taken.delete(entry.id);
      throw error;
    }
    return entry;
  }

  /**
   * An entry the mailbox watcher found (posted by another process, or left
   * by a crash): handed to its agent when it is this engine's; false when
   * it is for another process.
   */
  receive(entry: MailEntry): boolean {
    if (this.#taken.has(entry.id)) return true;
    const run = this.#host.find(entry.agentId);
    if (!run && !this.#host.works(entry.runId)) return false;
    if (entry.kind === 'stop') {
      this.#taken.add(entry.id);
      void this.#host.mailbox.ack(entry).finally(() => this.#taken.delete(entry.id));
      const reason = entry.text || 'Stopped by the user.';
      if (run && !run.ended) {
        if (entry.wholeRun) this.#host.cancelRun(run.tree.runId, reason);
        else this.#host.cancel(run.id, reason);
      } else if (entry.wholeRun && entry.runId) this.#host.cancelRun(entry.runId, reason);
      return true;
    }
    if (run && !run.ended) {
      void this.#hand(run, entry);
      return true;
    }
    // A result waits for its ended parent's next continuation unless it asks to wake it.
    if (entry.kind === 'result' && !entry.wakes) return true;
    this.#taken.add(entry.id);
    void this.#wake(entry.agentId);
    return true;
  }

  /** A live agent gets the entry in its inbox; one that ended meanwhile is continued with it (the continuation is returned). */
  #hand(run: AgentRun, entry: MailEntry): Promise<AgentRun | null> | null {
    this.#taken.add(entry.id);
    if (run.ended) return this.#wake(run.id);
    run.inbox.push({ entry, posted: true });
    this.#queued(entry);
    return null;
  }

  /** Continuations still being started; settled() waits for them. */
  get waking(): readonly Promise<unknown>[] {
    return [...this.#waking];
  }

  /** Continues an ended agent with what waits for it in the mailbox; a failure is logged (the entries stay for a later continuation). */
  #wake(agentId: string): Promise<AgentRun | null> {
    const started = this.#continuing.run(agentId, async () => {
      try {
        const live = this.#host.find(agentId);
        // Continued meanwhile (by a message, or a follow-up): what waits for it goes to its inbox instead.
        if (live && !live.ended) {
          for (const entry of await this.#host.mailbox.pending(agentId)) {
            if (entry.kind === 'stop' || alreadyDelivered(live.messages, entry)) continue;
            this.#taken.add(entry.id);
            live.inbox.push({ entry, posted: true });
          }
          return null;
        }
        return await this.continueWith(await this.#host.resumable(agentId), [], '', {});
      } catch (error) {
        if (!(error instanceof BusyElsewhereError)) this.#host.log('warn', `Could not continue agent ${agentId} with the messages waiting for it: ${(error as Error).message}`);
        return null;
      }
    });
    this.#waking.add(started);
    void started.finally(() => this.#waking.delete(started));
    return started;
  }

  /**
   * Continues an ended agent with everything waiting for it (messages it
   * never read, results of children that ended after it) and `prompt`:
   * under its parent when the parent is still at work in this engine,
   * otherwise as the root of a tree context of its own (a follow-up).
   */
  async continueWith(source: ResumeSource, extra: MailEntry[], prompt: string, options: ContinueOptions): Promise<AgentRun> {
    const entries = new Map<string, MailEntry>();
    for (const entry of [...(await this.#host.mailbox.pending(source.agentId)), ...extra]) entries.set(entry.id, entry);
    const items: InboxItem[] = [];
    for (const entry of [...entries.values()].sort((a, b) => a.sentAt - b.sentAt)) {
      // A stop that came too late has nothing left to stop; an entry in the transcript already was delivered before a crash.
      if (entry.kind === 'stop' || alreadyDelivered(source.messages, entry)) await this.#host.mailbox.ack(entry);
      else items.push({ entry, posted: true });
    }
    const text = [...items.map((i) => deliveredText(i.entry)), prompt.trim()].filter(Boolean).join('\n\n');
    if (!text) throw new EngineError(`Nothing to continue agent ${source.agentId} with: write a follow-up.`);
    const parent = source.parentId ? this.#host.find(source.parentId) : undefined;
    const atWork = parent && !parent.ended && !parent.sealed && parent.tree.runId === source.runId ? parent : null;
    for (const item of items) this.#taken.add(item.entry.id);
    const run = await this.#host.continueAgent(source, text, atWork, options);
    run.inbox.carried(items);
    for (const item of items) {
      this.#queued(item.entry);
      this.#host.publish(source.runId, source.agentId, { type: 'message_delivered', messageId: item.entry.id });
    }
    return run;
  }

  /**
   * When an agent's query loop is over: what arrived too late for its last
   * turn. Messages (and results that ask to wake it) continue it at once,
   * unless it was stopped; everything else waits in the mailbox for its
   * next continuation. Resolves to the continuing run, or null.
   */
  async afterEnd(run: AgentRun, leftovers: InboxItem[], stopped: boolean): Promise<AgentRun | null> {
    for (const item of leftovers) {
      if (item.posted) continue;
      await this.#host.mailbox.post(item.entry);
      this.#queued(item.entry);
    }
    const wakes = leftovers.some((i) => i.entry.kind === 'message' || i.entry.wakes);
    if (!wakes || stopped || run.tree.controller.signal.aborted) return null;
    // Called just before the run is marked ended: it can be continued once it is.
    await run.done;
    return this.#wake(run.id);
  }

  /**
   * An ended child's result, for a parent that does not wait for it in a
   * Task call: a background child, or one continued after its parent ended.
   */
  async resultReady(child: AgentRun): Promise<void> {
    const parentId = child.parent?.id ?? child.reportsTo;
    if (!parentId || (child.parent && !child.background)) return;
    // A teammate its lead ended (or that ended itself) is no news to the lead: it heard it go idle.
    if (child.teammate && !child.teammate.reportsEnd) return;
    const parent = child.parent ?? this.#host.find(parentId);
    const entry = resultEntry(child, parentId);
    if (parent && !parent.ended) {
      parent.inbox.push({ entry, posted: false });
      return;
    }
    // The parent has ended: the result waits in the tree, or continues it when the child is blocking.
    await this.#host.mailbox.post(entry);
    this.#queued(entry);
    const cancelled = parent?.result?.status === 'cancelled' || parent?.tree.controller.signal.aborted;
    if (entry.wakes && !cancelled) {
      this.#taken.add(entry.id);
      await this.#wake(parentId);
    }
  }

  /** Tells the surfaces what waits for the agent. */
  #queued(entry: MailEntry): void {
    if (entry.kind === 'stop') return;
    // Surfaces show a capped text; the agent reads the whole message from the mailbox entry.
    this.#host.publish(entry.runId, entry.agentId, { type: 'message_queued', messageId: entry.id, kind: entry.kind, from: entry.from, via: entry.via, text: capText(entry.text, SNAPSHOT_TEXT_CAPS.line) });
  }

  /** Acknowledges entries once the transcript that holds them is on disk. */
  acknowledge(items: InboxItem[]): void {
    for (const item of items) {
      if (!item.posted) continue;
      void this.#host.mailbox
        .ack(item.entry)
        .then(() => this.#taken.delete(item.entry.id))
        .catch((error: unknown) => this.#host.log('warn', `Could not remove delivered message ${item.entry.id} from the mailbox: ${(error as Error).message}`));
    }
  }
}
