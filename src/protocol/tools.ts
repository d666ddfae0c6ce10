import type { ApprovalKind } from './vocabulary';

/**
 * The tool registry: every tool an agent can call, described once. The
 * engine builds each agent's tools from it (which exist, in what order, which
 * run side by side), the permission gate asks by it, the agent-file readers
 * map other formats' names onto it, and every surface words a call by it.
 * Plain data and small functions, no schema library, so the webview bundle
 * can read it too.
 *
 * The public shape:
 * - `ToolSpec`, one tool's facts. Its `kind` (read, write, exec, spawn)
 *   decides what each permission mode does with a call (`MODE_RULES`:
 *   `offeredTo` for the tool list, `needsApproval` for the gate) and how a
 *   surface words an approval (`approvalLabel`).
 * - `BUILTIN_TOOLS`, the runtime's own tools in the order every request lists
 *   them; `builtinTool(name)` finds one by name or alias, in any case;
 *   `LISTED_TOOLS` are those agent files may ask for, and `BuiltinToolName`
 *   the union of the names they may write.
 *   A new built-in is one more entry here.
 * - `externalTool(name, origin, readOnly)`, the spec of a tool known only at
 *   run time: an MCP server's tool (read-only when it carries MCP's
 *   `readOnlyHint`), one of VS Code's `vscode.lm.tools`. Not declared
 *   read-only means it acts like a command: asked about in `default` and
 *   `acceptEdits`, not offered in plan mode, allowed one tool at a time.
 *   Surfaces show its `origin` (the server's name) with its name.
 */

export const TOOL_KINDS = ['read', 'write', 'exec', 'spawn'] as const;
/**
 * `read`: changes nothing outside the agent (reading, searching, its own task
 * list, the web). `write`: changes files. `exec`: runs commands. `spawn`:
 * starts or steers other agents.
 */
export type ToolKind = (typeof TOOL_KINDS)[number];

export interface ToolSpec {
  /** The name the model calls and agent files list (`Read`, `Bash`, `Task`). */
  readonly name: string;
  readonly kind: ToolKind;
  /**
   * Runs alongside the other calls of the same turn. Everything else runs
   * alone, in the order the model wrote the calls.
   */
  readonly parallel: boolean;
  /** Other names agent files use for the same tool (Claude Code's newer `Agent` for `Task`). */
  readonly aliases?: readonly string[];
  /** Given only to agents whose file lists it (the web tools are paid per use; the task list tools are a team's). */
  readonly optIn?: boolean;
  /** Comes with the spawn tool unless the file names it itself, and goes wherever the spawn tool goes. */
  readonly withSpawn?: boolean;
  /**
   * A tool of teams: the agents of a team (its lead and its teammates) get
   * it whatever their tools list, depth or plan mode say; `disallowedTools`
   * still takes it away.
   */
  readonly team?: boolean;
  /** A server tool, run on the API side: the name the API calls it by (`web_search`). */
  readonly apiName?: string;
  /** What a call's one-line summary names: `file`, a path surfaces can link to. */
  readonly subject?: 'file';
  /** Added by the engine itself, never named in an agent file (the structured-output tool). */
  readonly internal?: boolean;
  /** Where a tool known only at run time comes from (an MCP server's name), shown with its name. */
  readonly origin?: string;
}

/** Every built-in tool, in the order requests list them: stable, so the prompt cache keeps hitting. */
export const BUILTIN_TOOLS = [
  { name: 'Task', kind: 'spawn', parallel: true, aliases: ['Agent'] },
  { name: 'TaskOutput', kind: 'spawn', parallel: true, withSpawn: true },
  { name: 'TaskStop', kind: 'spawn', parallel: true, withSpawn: true },
  // A message to another agent of the run: steers it, or continues one that ended.
  { name: 'SendMessage', kind: 'spawn', parallel: true, withSpawn: true, team: true },
  // The run's shared task list (Claude Code's names). Changes land in call order; reads run alongside.
  { name: 'TaskCreate', kind: 'read', parallel: false, optIn: true, team: true },
  { name: 'TaskList', kind: 'read', parallel: true, optIn: true, team: true },
  { name: 'TaskGet', kind: 'read', parallel: true, optIn: true, team: true },
  { name: 'TaskUpdate', kind: 'read', parallel: false, optIn: true, team: true },
  { name: 'Bash', kind: 'exec', parallel: false },
  { name: 'Read', kind: 'read', parallel: true, subject: 'file' },
  { name: 'Write', kind: 'write', parallel: false, subject: 'file' },
  { name: 'Edit', kind: 'write', parallel: false, subject: 'file' },
  { name: 'MultiEdit', kind: 'write', parallel: false, subject: 'file' },
  { name: 'Glob', kind: 'read', parallel: true },
  { name: 'Grep', kind: 'read', parallel: true },
  { name: 'LS', kind: 'read', parallel: true },
  // One task list, replaced whole: calls in one turn must land in order.
  { name: 'TodoWrite', kind: 'read', parallel: false },
  { name: 'WebSearch', kind: 'read', parallel: true, optIn: true, apiName: 'web_search' },
  { name: 'WebFetch', kind: 'read', parallel: true, optIn: true, apiName: 'web_fetch' },
  // The call that ends the agent must be the last thing it does.
  { name: 'StructuredOutput', kind: 'read', parallel: false, internal: true },
] as const satisfies readonly ToolSpec[];

type Builtin = (typeof BUILTIN_TOOLS)[number];
type Listed = Exclude<Builtin, { internal: true }>;
/** The built-in tools' names as agent files may write them, aliases included. */
export type BuiltinToolName = Listed['name'] | (Listed extends infer T ? (T extends { aliases: readonly (infer A)[] } ? A : never) : never);

const BY_LOWER_NAME = new Map<string, ToolSpec>();
for (const spec of BUILTIN_TOOLS as readonly ToolSpec[]) {
  for (const name of [spec.name, ...(spec.aliases ?? [])]) BY_LOWER_NAME.set(name.toLowerCase(), spec);
}

/** A built-in tool by its name or an alias, in any case (`agent` → Task); undefined for anything else. */
export function builtinTool(name: BuiltinToolName | 'StructuredOutput'): ToolSpec;
export function builtinTool(name: string): ToolSpec | undefined;
export function builtinTool(name: string): ToolSpec | undefined {
  return BY_LOWER_NAME.get(name.trim().toLowerCase());
}

/** The built-in server tool the API calls `apiName` (`web_search` → WebSearch). */
export function builtinToolByApiName(apiName: string): ToolSpec | undefined {
  return (BUILTIN_TOOLS as readonly ToolSpec[]).find((spec) => spec.apiName === apiName);
}

/** The built-ins an agent file can ask for (all but the internal ones), in request order. */
export const LISTED_TOOLS: readonly ToolSpec[] = (BUILTIN_TOOLS as readonly ToolSpec[]).filter((spec) => !spec.internal);

/** The names agent files may list, each tool followed by its aliases, in request order. */
export const LISTED_TOOL_NAMES = LISTED_TOOLS.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])]) as readonly BuiltinToolName[];

/** The spawn tool (`Task`), the one every agent that may start others gets. */
export const SPAWN_TOOL = 'Task' satisfies BuiltinToolName;
/** The spawn tool's aliases, looked up once: discovery asks about every tool of every agent. */
const SPAWN_ALIASES: readonly string[] = builtinTool(SPAWN_TOOL).aliases ?? [];

/** Whether `name` is the spawn tool under one of its names (`Task`, `Agent`); exact case, as the model calls it. */
export function isSpawnToolName(name: string): boolean {
  return name === SPAWN_TOOL || SPAWN_ALIASES.includes(name);
}

export const PERMISSION_MODES = ['default', 'plan', 'acceptEdits', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/**
 * What a permission mode does with a call of each kind: `run` it, `ask` the
 * user first, or leave the tool out (`hidden`). Plan mode is read-only; there
 * only the run's first agent keeps the spawn tool (`first agent`), and the
 * agents it starts run in plan mode too. Under acceptEdits a write to a
 * protected file (hook settings, `.git/`) is still asked about.
 */
export const MODE_RULES: Readonly<Record<PermissionMode, Readonly<Record<ToolKind, 'run' | 'ask' | 'hidden' | 'first agent'>>>> = {
  default: { read: 'run', spawn: 'run', write: 'ask', exec: 'ask' },
  acceptEdits: { read: 'run', spawn: 'run', write: 'run', exec: 'ask' },
  bypassPermissions: { read: 'run', spawn: 'run', write: 'run', exec: 'run' },
  plan: { read: 'run', spawn: 'first agent', write: 'hidden', exec: 'hidden' },
};

/** Whether an agent in `mode` gets a tool of `kind` at all; `depth` 0 is the run's first agent. */
export function offeredTo(kind: ToolKind, mode: PermissionMode, depth: number): boolean {
  const rule = MODE_RULES[mode][kind];
  return rule === 'first agent' ? depth === 0 : rule !== 'hidden';
}

/**
 * Whether a call must be approved first. A kind the mode hides that still
 * reaches the gate (a hook command in plan mode) is asked about; so is a
 * write to a protected file in any mode but bypassPermissions.
 */
export function needsApproval(mode: PermissionMode, kind: ToolKind, protectedTarget = false): boolean {
  const rule = MODE_RULES[mode][kind];
  if (rule === 'ask' || rule === 'hidden') return true;
  return protectedTarget && kind === 'write' && mode !== 'bypassPermissions';
}

/**
 * What an approval of a call is about: shell commands, file changes and each
 * tool of another program (`origin`: an MCP server's) are allowed separately.
 */
export function approvalKind(kind: ToolKind, origin?: string): ApprovalKind | null {
  if (kind === 'read' || kind === 'spawn') return null;
  if (origin !== undefined) return 'mcp';
  return kind === 'exec' ? 'bash' : 'edit';
}

/**
 * How every surface words and marks an approval: what the agent wants to do
 * with a call of `toolName` ("run a shell command", "write", "edit", "use
 * create_issue"), one verb per act wherever it is asked, with a codicon.
 */
export function approvalLabel(kind: ApprovalKind, toolName = ''): { verb: string; icon: 'terminal' | 'edit' | 'plug' | 'shield' } {
  // A call its agent's file says to ask about (a fetch, a spawn): named by its tool.
  if (kind === 'tool') return { verb: `use ${builtinTool(toolName)?.name ?? (toolName || 'a tool')}`, icon: 'shield' };
  // A tool of an MCP server or of the editor, named as every surface names it (`notes › add_note`).
  if (kind === 'mcp') {
    const parts = /^(?:mcp|vscode)__(.+?)__(.+)$/.exec(toolName);
    return { verb: `use ${parts ? `${parts[1]} › ${parts[2]}` : toolName || 'a tool of another program'}`, icon: 'plug' };
  }
  if (kind === 'bash') return { verb: toolName === 'Bash' ? 'run a shell command' : 'run a command', icon: 'terminal' };
  const spec = builtinTool(toolName);
  if (spec?.subject !== 'file') return { verb: `use ${toolName || 'a tool'}`, icon: 'edit' };
  return { verb: spec.name === 'Write' ? 'write' : 'edit', icon: 'edit' };
}

/**
 * The spec of a tool known only at run time (an MCP server's, one of VS
 * Code's). One its server does not declare read-only (MCP's `readOnlyHint`)
 * acts on the world through another program, as a command does: it counts
 * as `exec`, so it is asked about in `default` and in `acceptEdits` (which
 * accepts file changes, not a server's actions) and left out in plan mode.
 */
export function externalTool(name: string, origin: string, readOnly: boolean): ToolSpec {
  return { name, kind: readOnly ? 'read' : 'exec', parallel: readOnly, origin };
}

/**
 * How every surface names a call: a built-in by its name; a tool of a
 * server (an MCP server, an editor tool set) as `server › tool`, so the
 * server a call went to comes first, whatever name the model called it by
 * (`mcp__github__create_issue` → `github › create_issue`).
 */
export function toolLabel(row: { name: string; server?: string | null }): string {
  if (!row.server) return row.name;
  const own = `__${row.server.replace(/[^a-zA-Z0-9_-]/g, '_')}__`;
  const at = row.name.indexOf(own);
  const tool = at > 0 && /^(mcp|vscode)$/.test(row.name.slice(0, at)) ? row.name.slice(at + own.length) : row.name;
  return `${row.server} › ${tool}`;
}
