import type { ToolOutput } from '../tools/runtimeTool';

/**
 * The editor's own tools, as the core sees them without knowing the editor:
 * VS Code gives agents the tools in `vscode.lm.tools` (the MCP servers the
 * user configured in VS Code, and tools other extensions contribute) through
 * an implementation of this interface (src/vscode/editorTools.ts); the CLI
 * has none. Agent files name them by set: `github/*` (an MCP server VS Code
 * runs), `ms-python.python/getPythonEnvironmentInfo` (an extension's tool).
 */

export interface EditorTool {
  /** The editor's id for the tool, used to invoke it. */
  id: string;
  /** The set it belongs to, as agent files name it: an MCP server's name, an extension's id. */
  group: string;
  /** The tool's name within its set (`create_issue`). */
  tool: string;
  /** `mcp`: a tool of an MCP server the editor runs; `extension`: an extension's. */
  kind: 'mcp' | 'extension';
  description: string;
  inputSchema: Record<string, unknown> | null;
}

export interface EditorInvocation {
  signal: AbortSignal;
  toolUseId: string;
  /** What the run was started with (VS Code: the chat request's tool invocation token), if anything. */
  runContext: unknown;
}

export interface EditorToolProvider {
  /** The tool sets the editor has now, by name as files write them (`github`, `ms-python.python`). */
  sets(): ReadonlySet<string>;
  /** The tools of these sets. */
  tools(sets: readonly string[]): EditorTool[];
  /**
   * Runs a tool. The editor asks the user to confirm where the tool wants
   * that (VS Code's own confirmation), so the runtime's permission gate does
   * not ask a second time. Rejects with the reason when it fails or is declined.
   */
  invoke(tool: EditorTool, input: Record<string, unknown>, invocation: EditorInvocation): Promise<ToolOutput>;
  /** Told when the editor's tools change. */
  onDidChange?(listener: () => void): () => void;
  /**
   * Asked before an agent starts whose file names sets the editor does not
   * list: the editor may start the MCP servers it knows (whose tools it
   * lists only once they ran), asking the user where its own rules say so.
   * Resolves when done or after `timeoutMs`.
   */
  prepare?(missing: readonly string[], timeoutMs: number): Promise<void>;
}
