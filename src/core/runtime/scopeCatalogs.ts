import type { AgentCatalog, AgentCatalogOptions } from '../agents/catalog/catalog';
import type { ScopeCatalog } from './scope';

/**
 * A runtime's discovered catalogs, one per set of discovery options. Scopes
 * that would discover the same folders the same way share one watched
 * catalog: every `subagents run` through the agent host is a scope of its
 * own (its session, settings and key), and without this each discovered
 * and watched the folder again on its way to its first request. A watched
 * catalog is the folder's agents as they are on disk whoever reads it, so
 * sharing one changes nothing but the work; it stops watching when the
 * last scope holding it closes.
 */
export class ScopeCatalogs {
  readonly #open = new Map<string, { catalog: Promise<AgentCatalog>; holders: number }>();

  /** The catalog for `options` (discovered by `create` when no open scope holds one), for one scope to dispose of. */
  async hold(options: AgentCatalogOptions, create: (options: AgentCatalogOptions) => Promise<AgentCatalog>): Promise<ScopeCatalog> {
    const key = JSON.stringify(options);
    let entry = this.#open.get(key);
    if (!entry) {
      const created = { catalog: create(options), holders: 0 };
      this.#open.set(key, created);
      created.catalog.catch(() => {
        if (this.#open.get(key) === created) this.#open.delete(key);
      });
      entry = created;
    }
    entry.holders++;
    const held = entry;
    let catalog: AgentCatalog;
    try {
      catalog = await held.catalog;
    } catch (error) {
      held.holders--;
      throw error;
    }
    let released = false;
    return {
      get agents() {
        return catalog.agents;
      },
      get warnings() {
        return catalog.warnings;
      },
      find: (name) => catalog.find(name),
      dispose: () => {
        if (released) return;
        released = true;
        if (--held.holders > 0) return;
        if (this.#open.get(key) === held) this.#open.delete(key);
        catalog.dispose();
      },
    };
  }

  /** How many catalogs are open (tests). */
  get size(): number {
    return this.#open.size;
  }
}
