import type { McpConnection } from './connection';

/**
 * MCP servers that are running and that no run tree holds: the servers of a
 * tree that ended, kept for a while so the next tree that asks for the same
 * server (the same launch: command, arguments, environment, folder) gets it
 * at once instead of starting a new process, as a session of Claude Code
 * keeps its servers; and servers started ahead of a tree (McpHost.prestart).
 * A tree holds a server alone while it runs, so two trees at work at once
 * never share one. Stopped after `lingerMs` unused, and all of them when the
 * host closes.
 */
export class IdleServers {
  readonly #idle = new Map<string, Array<{ connection: McpConnection; timer: NodeJS.Timeout }>>();
  #closed = false;

  constructor(private readonly lingerMs: number) {}

  /** A running (or starting) server for `key`, taken out of the idle set. */
  take(key: string): McpConnection | undefined {
    const list = this.#idle.get(key);
    while (list?.length) {
      const { connection, timer } = list.shift()!;
      clearTimeout(timer);
      if (connection.live) return connection;
      void connection.close();
    }
    this.#idle.delete(key);
    return undefined;
  }

  /** Keeps a server no tree holds any more, or stops it (the host is closing, it is not running, or nothing keeps servers). */
  put(connection: McpConnection): void {
    if (this.#closed || this.lingerMs <= 0 || !connection.live) {
      void connection.close();
      return;
    }
    const key = connection.launch.key;
    const timer = setTimeout(() => {
      const list = this.#idle.get(key);
      const at = list?.findIndex((entry) => entry.connection === connection) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      if (list?.length === 0) this.#idle.delete(key);
      void connection.close();
    }, this.lingerMs);
    // A server kept for later never keeps the process alive.
    timer.unref();
    const list = this.#idle.get(key) ?? [];
    list.push({ connection, timer });
    this.#idle.set(key, list);
  }

  /** How many servers are kept now. */
  get size(): number {
    return [...this.#idle.values()].reduce((n, list) => n + list.length, 0);
  }

  /** Stops every kept server; later ones are stopped as they come. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#idle.values()].flat();
    this.#idle.clear();
    for (const { timer } of all) clearTimeout(timer);
    await Promise.all(all.map(({ connection }) => connection.close()));
  }
}
