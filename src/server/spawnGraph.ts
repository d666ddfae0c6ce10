import type { AgentDefinition } from '../core/agents/definition';

/**
 * Who may spawn whom, from the agents' `spawns` lists (and `Task(a, b)`
 * patterns, which the core folds into the same list). `*` is left out: an
 * agent that may spawn anyone closes a cycle with everyone, which says
 * nothing. Graphs are small (tens to a few thousand agents, a handful of
 * edges each), and each question walks at most maxDepth + 1 levels.
 */

export class SpawnGraph {
  private readonly edges = new Map<string, readonly string[]>();

  constructor(agents: Iterable<AgentDefinition>) {
    const lists = new Map<string, readonly string[]>();
    for (const agent of agents) lists.set(agent.name, Array.isArray(agent.spawns) ? agent.spawns : []);
    // Only spawns of agents that exist can happen; the others are reported as unknown names.
    for (const [name, targets] of lists) this.edges.set(name, targets.filter((t) => lists.has(t)));
  }

  private targets(name: string): readonly string[] {
    return this.edges.get(name) ?? [];
  }

  /** A shortest spawn path from `from` back to `to` (both included), or null. */
  pathBack(from: string, to: string): string[] | null {
    const previous = new Map<string, string | null>([[from, null]]);
    const queue = [from];
    while (queue.length > 0) {
      const current = queue.shift()!;
      if (current === to) {
        const path: string[] = [];
        for (let at: string | null = current; at !== null; at = previous.get(at) ?? null) path.unshift(at);
        return path;
      }
      for (const next of this.targets(current)) {
        if (!previous.has(next)) {
          previous.set(next, current);
          queue.push(next);
        }
      }
    }
    return null;
  }

  /**
   * A chain of spawns starting `root → first` that is longer than `maxDepth`
   * spawns (no agent twice), or null. With `root` started at depth 0, the
   * agent at depth `maxDepth` has no spawn tool, so such a chain breaks there.
   */
  chainBeyond(root: string, first: string, maxDepth: number): string[] | null {
    const chain = [root, first];
    const walk = (): boolean => {
      if (chain.length - 1 > maxDepth) return true;
      for (const next of this.targets(chain.at(-1)!)) {
        if (chain.includes(next)) continue;
        chain.push(next);
        if (walk()) return true;
        chain.pop();
      }
      return false;
    };
    return walk() ? chain : null;
  }
}
