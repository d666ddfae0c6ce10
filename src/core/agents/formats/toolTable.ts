import type { BuiltinToolName } from '../../../protocol/tools';

/**
 * The shape of one format's tool-name table (see the per-format modules in
 * this folder). Keys are lower case: every format here matches tool names
 * case-insensitively.
 */

/** A runtime tool as agent files name it, Claude Code's way: the tool registry's names (protocol/tools.ts). */
export type CanonicalToolName = BuiltinToolName;

export type ToolMapping =
  /** The runtime tools the name stands for (one name may stand for several). */
  | { tools: readonly CanonicalToolName[] }
  /**
   * A name that needs no tool of its own here because `by` already does its
   * job (Claude Code's `BashOutput` next to `Bash`); warned about only when
   * `by` is not in the list.
   */
  | { coveredBy: CanonicalToolName; reason: string }
  /** A tool the home tool gives every agent and the runtime does the job of itself: no tool, no warning. */
  | { implicit: string }
  /** A tool this runtime does not have; `reason` says what it is, for the warning. */
  | { unsupported: string }
  /**
   * A tool of an MCP server or of the editor (`mcp__github__create_issue`,
   * `github/*`): kept as written and matched against the servers' tools when
   * the agent starts (src/core/agents/mcpServers/toolPatterns.ts).
   */
  | { external: true };

/** Names lower-cased → what they stand for; `spellings`: the names as the format writes them (for completions). */
export type ToolTable = ReadonlyMap<string, ToolMapping> & { readonly spellings: readonly string[] };

/** Builds a table from `[names, mapping]` rows. */
export function toolTable(rows: readonly (readonly [readonly string[], ToolMapping])[]): ToolTable {
  const table = new Map<string, ToolMapping>();
  const spellings: string[] = [];
  for (const [names, mapping] of rows) {
    for (const name of names) {
      table.set(name.toLowerCase(), mapping);
      spellings.push(name);
    }
  }
  return Object.assign(table, { spellings });
}

export const tools = (...names: CanonicalToolName[]): ToolMapping => ({ tools: names });
export const implicit = (reason: string): ToolMapping => ({ implicit: reason });
export const unsupported = (reason: string): ToolMapping => ({ unsupported: reason });

/** One frontmatter (or TOML) key a format reads, documented for hovers and the README. */
export interface FieldDoc {
  /** The key as the format writes it. */
  key: string;
  /** One line: what it means there and what it becomes here. */
  doc: string;
  /** Its values, when they are a closed set (the language server completes them). */
  values?: readonly string[];
}
