import { createHash } from 'node:crypto';

/**
 * The names the model calls MCP and editor tools by. The API takes
 * `^[a-zA-Z0-9_-]{1,64}$`; servers and tools may be named anything, and two
 * servers may offer tools of the same name. So every tool is called
 * `mcp__<server>__<tool>` (a tool of an editor extension:
 * `vscode__<extension>__<tool>`), Claude Code's own spelling, with other
 * characters as `_`; a name past 64 characters keeps its start and gets a
 * hash of the full one, and a name two tools would share after that gets
 * the hash too. The same server and tool get the same name in every run,
 * whatever else the agent has, so transcripts and prompt caches stay valid.
 */

export const MAX_TOOL_NAME = 64;

export type ToolGroupKind = 'mcp' | 'vscode';

function clean(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function hash(kind: ToolGroupKind, group: string, tool: string): string {
  return createHash('sha256').update(`${kind}\0${group}\0${tool}`).digest('hex').slice(0, 8);
}

export function modelToolName(kind: ToolGroupKind, group: string, tool: string): string {
  const full = `${kind}__${clean(group)}__${clean(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${hash(kind, group, tool)}`;
}

/**
 * Names for a set of tools, unique among themselves and against `taken`
 * (the runtime's own tool names): a clash is settled by the hash, which
 * depends only on the tool, so which of two clashing tools gets which name
 * never depends on their order.
 */
export function uniqueToolNames(tools: ReadonlyArray<{ kind: ToolGroupKind; group: string; tool: string }>, taken: ReadonlySet<string>): string[] {
  const plain = tools.map((t) => modelToolName(t.kind, t.group, t.tool));
  const counts = new Map<string, number>();
  for (const name of plain) counts.set(name.toLowerCase(), (counts.get(name.toLowerCase()) ?? 0) + 1);
  return plain.map((name, i) => {
    if (counts.get(name.toLowerCase()) === 1 && !taken.has(name)) return name;
    const { kind, group, tool } = tools[i]!;
    const suffix = `_${hash(kind, group, tool)}`;
    return `${name.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
  });
}
