import path from 'node:path';
import type { RuntimeTool } from '../tools/runtimeTool';

/**
 * Which files an isolated agent's own tools wrote in its worktree, so that
 * its finish can stage just those instead of walking the whole tree (`git
 * add -A` over a large repository costs a full status per agent, eight at
 * once in a fan-out). It is only an answer while every call the agent made
 * is one whose effect on files is known: a shell command, a spawn (a child
 * may work in the same worktree), a message to another agent, an MCP tool or
 * anything else unknown makes it `complete: false`, and the finish looks at
 * everything again.
 */

/** Tools that write exactly the file their `file_path` names. */
const FILE_WRITERS = new Set(['Write', 'Edit', 'MultiEdit']);
/** Tools that write no file at all. */
const NO_WRITES = new Set(['Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebSearch', 'WebFetch', 'TaskOutput', 'StructuredOutput']);

export class WrittenFiles {
  /** Absolute paths, as the tools were given them (resolved against the agent's working directory). */
  readonly paths = new Set<string>();
  complete = true;

  /** Notes a call as it starts: before it can have written anything, so a call that is stopped half way is counted too. */
  record(tool: RuntimeTool | undefined, input: unknown, cwd: string): void {
    // An MCP tool may be called Write too; only our own tools are known.
    const name = tool && !tool.origin ? tool.name : undefined;
    if (name && NO_WRITES.has(name)) return;
    const file = name && FILE_WRITERS.has(name) ? filePath(input) : undefined;
    if (file) this.paths.add(path.resolve(cwd, file));
    else this.complete = false;
  }

  /** The files to stage, or undefined when only a look at the whole tree can tell what changed. */
  only(): string[] | undefined {
    return this.complete && this.paths.size > 0 ? [...this.paths] : undefined;
  }
}

function filePath(input: unknown): string | undefined {
  const value = typeof input === 'object' && input !== null ? (input as { file_path?: unknown }).file_path : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
