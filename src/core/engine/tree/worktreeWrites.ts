import path from 'node:path';
import type { RuntimeTool } from '../../tools/runtimeTool';

/**
 * Which files an isolated agent's own tools wrote in its worktree, so that
 * its finish can stage just those instead of walking the whole tree (`git
 * add -A` over a large repository costs a full status per agent, eight at
 * once in a fan-out). It is only an answer while every call the agent made
 * is one whose effect on files is known: a shell command, a spawn (a child
 * may work in the same worktree), a message to another agent, an MCP tool or
 * anything else unknown makes the list incomplete, and the finish looks at
 * everything again.
 */

export class WrittenFiles {
  /** Absolute paths, as the tools were given them (resolved against the agent's working directory). */
  readonly paths = new Set<string>();
  /** False once something may have written that no list names: then only a look at everything tells. */
  #complete = true;

  /** Notes a call as it starts: before it can have written anything, so a call that is stopped half way is counted too. */
  record(tool: RuntimeTool | undefined, input: unknown, cwd: string): void {
    // A tool known only at run time (an MCP server's, VS Code's) is not ours to vouch for, whatever it is called or declares.
    if (!tool || tool.origin) {
      this.#complete = false;
      return;
    }
    // The registry's kinds: `read` tools change nothing; a `write` tool about a file writes the file its input names.
    if (tool.kind === 'read') return;
    const file = tool.kind === 'write' && tool.subject === 'file' ? filePath(input) : undefined;
    if (file) this.paths.add(path.resolve(cwd, file));
    else this.#complete = false;
  }

  /**
   * Something other than the agent's own tools wrote, or may have, in its
   * folder: a SubagentStart or SubagentStop hook command, or work that was
   * there before this run (a follow-up in an existing worktree).
   */
  writtenByOthers(): void {
    this.#complete = false;
  }

  /** The files to stage, or undefined when only a look at the whole tree can tell what changed. */
  only(): string[] | undefined {
    return this.#complete && this.paths.size > 0 ? [...this.paths] : undefined;
  }
}

function filePath(input: unknown): string | undefined {
  const value = typeof input === 'object' && input !== null ? (input as { file_path?: unknown }).file_path : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
