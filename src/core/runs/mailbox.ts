import { watch, type FSWatcher } from 'node:fs';
import { access, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { isTempFile, moveAside } from '../atomicFile';
import type { AgentMailbox, MailEntry } from '../engine/messaging/mail';
import { decodeJson, NewerVersion, writeJson, type JsonFormat } from '../persistence';

/**
 * The mailbox beside the run history: one small JSON file per entry,
 * `<agentId>.<sentAt>-<id>.json`, written atomically, so any process that
 * shares the history (a VS Code window, `subagents send` in a terminal) can
 * leave a message for an agent another process runs. The process at work
 * on the agent watches the folder (fs.watch, with a scan every second as
 * the fallback where file events do not arrive, such as network file
 * systems) and removes an entry once the agent's transcript holds it. An
 * entry nobody took (its process died) stays until the agent is continued.
 */

const entrySchema = z.object({
  id: z.string().regex(/^m[0-9a-f]+$/),
  agentId: z.string().min(1),
  runId: z.string(),
  kind: z.enum(['message', 'result', 'stop']),
  text: z.string(),
  from: z.object({ agentId: z.string(), agentName: z.string() }).nullable(),
  via: z.string(),
  sentAt: z.number(),
  wholeRun: z.boolean().optional(),
  wakes: z.boolean().optional(),
});
/** One entry per file, through the persistence layer: versioned, its write retried, a newer build's entry left alone. */
const MAIL_FORMAT: JsonFormat<MailEntry> = {
  what: 'mailbox entry',
  version: 1,
  readers: { 1: (data) => entrySchema.parse(data.entry) },
  fields: (entry) => ({ entry: entrySchema.parse(entry) }),
};

/** How often the folder is scanned when file events stay away. */
const POLL_MS = 1000;

/** Agent ids are hex: anything else could not be a file name here, and is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]+$/;

export class Mailbox implements AgentMailbox {
  readonly dir: string;
  readonly #log: (level: 'warn', message: string) => void;
  /** Entries read, by file name (a file's content never changes). */
  readonly #read = new Map<string, MailEntry | null>();

  constructor(dir: string, log: (level: 'warn', message: string) => void = () => undefined) {
    this.dir = dir;
    this.#log = log;
  }

  #name(entry: MailEntry): string {
    if (!AGENT_ID.test(entry.agentId)) throw new Error(`not an agent id: "${entry.agentId}"`);
    return `${entry.agentId}.${String(entry.sentAt).padStart(13, '0')}-${entry.id}.json`;
  }

  /** Leaves an entry; rejects (WriteFailed, naming the file) when it could not be written even after retries. */
  async post(entry: MailEntry): Promise<void> {
    await writeJson(MAIL_FORMAT, path.join(this.dir, this.#name(entry)), entry);
  }

  async pending(agentId: string): Promise<MailEntry[]> {
    const names = (await this.#names()).filter((name) => name.startsWith(`${agentId}.`));
    const entries = await Promise.all(names.map((name) => this.#entry(name)));
    return entries.filter((e): e is MailEntry => e !== null && e.agentId === agentId).sort((a, b) => a.sentAt - b.sentAt);
  }

  async ack(entry: MailEntry): Promise<void> {
    const name = this.#name(entry);
    await rm(path.join(this.dir, name), { force: true });
    this.#read.delete(name);
  }

  /** Whether the entry is still waiting (not acknowledged). */
  async holds(entry: MailEntry): Promise<boolean> {
    return access(path.join(this.dir, this.#name(entry))).then(
      () => true,
      () => false,
    );
  }

  /** Removes everything left for an agent (its run left the history). */
  async removeAgent(agentId: string): Promise<void> {
    for (const name of (await this.#names()).filter((n) => n.startsWith(`${agentId}.`))) await rm(path.join(this.dir, name), { force: true });
  }

  /**
   * Calls `offer` with every entry in the folder, oldest first, as soon as
   * it appears and again at each scan until `offer` takes it (returns
   * true): an entry for an agent that starts working here a moment later
   * is not missed. Returns the function that stops watching.
   */
  watch(offer: (entry: MailEntry) => boolean): () => void {
    const taken = new Set<string>();
    let stopped = false;
    let scanning = false;
    let again = false;
    const scan = async () => {
      if (scanning) {
        again = true;
        return;
      }
      scanning = true;
      try {
        do {
          again = false;
          const names = await this.#names();
          for (const name of taken) if (!names.includes(name)) taken.delete(name);
          const entries = (await Promise.all(names.filter((n) => !taken.has(n)).map(async (name) => ({ name, entry: await this.#entry(name) })))).filter(
            (e): e is { name: string; entry: MailEntry } => e.entry !== null,
          );
          for (const { name, entry } of entries.sort((a, b) => a.entry.sentAt - b.entry.sentAt)) {
            if (stopped) return;
            try {
              if (offer(entry)) taken.add(name);
            } catch (error) {
              // One entry that cannot be handed over must not hold up the others; it is offered again at the next scan.
              this.#log('warn', `Could not hand over mailbox entry ${name}: ${(error as Error).message}`);
            }
          }
        } while (again && !stopped);
      } catch (error) {
        this.#log('warn', `Could not read the mailbox ${this.dir}: ${(error as Error).message}`);
      } finally {
        scanning = false;
      }
    };
    let watcher: FSWatcher | null = null;
    void mkdir(this.dir, { recursive: true })
      .then(() => {
        if (stopped) return;
        watcher = watch(this.dir, () => void scan());
        watcher.on('error', () => watcher?.close());
        watcher.unref();
      })
      .catch(() => undefined)
      .finally(() => void scan());
    const timer = setInterval(() => void scan(), POLL_MS);
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
      (watcher as FSWatcher | null)?.close();
    };
  }

  async #names(): Promise<string[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.endsWith('.json') && !isTempFile(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    // Entries another process removed leave the cache too.
    const present = new Set(names);
    for (const name of this.#read.keys()) if (!present.has(name)) this.#read.delete(name);
    return names;
  }

  /** The entry in `name`; null when it is gone, or unreadable (then moved aside, so it is reported once). */
  async #entry(name: string): Promise<MailEntry | null> {
    if (this.#read.has(name)) return this.#read.get(name)!;
    const file = path.join(this.dir, name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return null;
    }
    try {
      const entry = decodeJson(MAIL_FORMAT, text);
      this.#read.set(name, entry);
      return entry;
    } catch (error) {
      if (error instanceof NewerVersion) {
        // Another build sharing the history left it, for its own agents: told once, left where it is.
        this.#read.set(name, null);
        this.#log('warn', `Mailbox entry ${name} is not delivered here: ${error.message}.`);
        return null;
      }
      const aside = await moveAside(file).catch(() => null);
      this.#log('warn', `Mailbox entry ${name} is unreadable (${(error as Error).message.split('\n')[0]}); ${aside ? `moved it to ${path.basename(aside)}` : 'could not move it aside'}.`);
      return null;
    }
  }
}
