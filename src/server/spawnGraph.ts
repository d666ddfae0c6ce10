import type { AgentDefinition } from '../core/agents/definition';

/**
 * Who may spawn whom, from the agents' `spawns` lists (and `Task(a, b)`
 * patterns, which the core folds into the same list). `*` is left out: an
 * agent that may spawn anyone closes a cycle with everyone, which says
 * nothing.
 *
 * Built from the catalog without the file being edited, and asked only
 * about paths that start at one of that file's targets and stop at (or never
 * revisit) the file's own agent: so the answers do not depend on the edited
 * file, and are kept until the catalog changes. A keystroke costs lookups.
 */

/** A bound on the steps of one depth search, which could grow as branching^maxDepth. */
const MAX_STEPS = 50_000;

export class SpawnGraph {
  private readonly edges = new Map<string, readonly string[]>();
  private readonly answers = new Map<string, string[] | null>();

  constructor(agents: Iterable<AgentDefinition>) {
    for (const agent of agents) this.edges.set(agent.name, Array.isArray(agent.spawns) ? agent.spawns : []);
  }

  private memo(key: string, compute: () => string[] | null): string[] | null {
    if (!this.answers.has(key)) this.answers.set(key, compute());
    return this.answers.get(key)!;
  }

  /** A shortest spawn path from `from` to `to` (both included), or null. */
  pathBack(from: string, to: string): string[] | null {
    return this.memo(`cycle\0${from}\0${to}`, () => {
      const previous = new Map<string, string | null>([[from, null]]);
      const queue = [from];
      for (let head = 0; head < queue.length; head++) {
        const current = queue[head]!;
        if (current === to) {
          const path: string[] = [];
          for (let at: string | null = current; at !== null; at = previous.get(at) ?? null) path.unshift(at);
          return path;
        }
        for (const next of this.edges.get(current) ?? []) {
          if (!previous.has(next)) {
            previous.set(next, current);
            queue.push(next);
          }
        }
      }
      return null;
    });
  }

  /**
   * A chain of spawns starting `root → first` that is longer than `maxDepth`
   * spawns (no agent twice, only agents that exist), or null. With `root`
   * started at depth 0, the agent at depth `maxDepth` has no spawn tool, so
   * such a chain breaks there.
   */
  chainBeyond(root: string, first: string, maxDepth: number): string[] | null {
    return this.memo(`depth\0${root}\0${first}\0${maxDepth}`, () => {
      const chain = [root, first];
      let steps = 0;
      const walk = (): boolean => {
        if (chain.length - 1 > maxDepth) return true;
        for (const next of this.edges.get(chain.at(-1)!) ?? []) {
          if (++steps > MAX_STEPS) return false;
          if (!this.edges.has(next) || chain.includes(next)) continue;
          chain.push(next);
          if (walk()) return true;
          chain.pop();
        }
        return false;
      };
      return walk() ? chain : null;
    });
  }
}
