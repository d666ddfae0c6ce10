import * as vscode from 'vscode';
import type { BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta';
import type { EditorInvocation, EditorTool, EditorToolProvider } from '../core/mcp/editorTools';
import { ToolCallError, type ToolOutput } from '../core/tools/runtimeTool';
import { editorIdentity, type McpStatusStore, type ServerTool } from '../core/mcp/status';

/**
 * VS Code's own tools for agents: `vscode.lm.tools`, which holds the tools of
 * the MCP servers the user configured in VS Code (`.vscode/mcp.json`, user
 * settings, MCP extensions) and the tools other extensions contribute. Agent
 * files name them by set, as Copilot's files do: `github/*` (a server VS
 * Code runs), `ms-python.python/getPythonEnvironmentInfo` (an extension's
 * tool). Calls go through `vscode.lm.invokeTool`, so VS Code asks the user to
 * confirm them as it does for its own agents: inline in the chat response
 * when the run was started from chat and that request is still open (its
 * tool invocation token), else in a dialog.
 *
 * The set of a tool: its `fullReferenceName` (`server/tool`), which VS Code
 * 1.139 gives every tool it lists though the stable typings do not declare
 * it; failing that, for an extension's tool, the extension's id from its
 * `contributes.languageModelTools` (stable API). A server VS Code runs whose
 * tools carry no reference name cannot be named here.
 */

/** What a chat-started run carries, so its calls confirm in the chat while the request is open. */
export interface ChatRunContext {
  toolInvocationToken: vscode.ChatParticipantToolToken | undefined;
  /** Whether the chat request is still open (a token of a finished request is refused). */
  live(): boolean;
}

/** Our own tools are not offered back to our agents. */
const OWN_PREFIX = 'subagents_';
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function contributedTools(): Map<string, string> {
  const byName = new Map<string, string>();
  for (const extension of vscode.extensions.all) {
    const tools = (extension.packageJSON as { contributes?: { languageModelTools?: Array<{ name?: string; toolReferenceName?: string }> } }).contributes?.languageModelTools;
    for (const tool of tools ?? []) if (tool.name) byName.set(tool.name, `${extension.id.toLowerCase()}/${tool.toolReferenceName ?? tool.name}`);
  }
  return byName;
}

function toolsNow(): EditorTool[] {
  let contributed: Map<string, string> | null = null;
  const out: EditorTool[] = [];
  for (const info of vscode.lm.tools) {
    if (info.name.startsWith(OWN_PREFIX)) continue;
    const reference = (info as { fullReferenceName?: unknown }).fullReferenceName;
    const full = typeof reference === 'string' && reference.includes('/') ? reference : (contributed ??= contributedTools()).get(info.name);
    if (!full) continue;
    const slash = full.lastIndexOf('/');
    out.push({
      id: info.name,
      group: full.slice(0, slash),
      tool: full.slice(slash + 1),
      // VS Code tags the tools of the MCP servers it runs `mcp`.
      kind: info.tags.includes('mcp') ? 'mcp' : 'extension',
      description: info.description,
      inputSchema: (info.inputSchema as Record<string, unknown> | undefined) ?? null,
    });
  }
  return out;
}

function outputOf(result: vscode.LanguageModelToolResult): ToolOutput {
  const blocks: BetaToolResultContentBlockParam[] = [];
  for (const part of result.content) {
    if (part instanceof vscode.LanguageModelTextPart) blocks.push({ type: 'text', text: part.value });
    else if (part instanceof vscode.LanguageModelDataPart) {
      if (IMAGE_TYPES.has(part.mimeType)) blocks.push({ type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: Buffer.from(part.data).toString('base64') } });
      else if (part.mimeType.startsWith('text/') || part.mimeType.includes('json')) blocks.push({ type: 'text', text: Buffer.from(part.data).toString('utf8') });
      else blocks.push({ type: 'text', text: `[${part.mimeType} data left out]` });
    } else if (part instanceof vscode.LanguageModelPromptTsxPart) blocks.push({ type: 'text', text: JSON.stringify(part.value) });
  }
  if (blocks.every((b) => b.type === 'text')) return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n') || '(no output)';
  return blocks;
}

/** VS Code's command that starts the MCP servers it knows ('*': all), asking for trust where its own rules say so. */
const START_SERVERS = 'workbench.mcp.startServer';
/** After a start, a name still missing is not looked for again for this long. */
const START_AGAIN_AFTER_MS = 30_000;
/** How long after the servers are live their tools may take to reach the extension host. */
const TOOLS_ARRIVE_MS = 2_000;

export class VsCodeEditorTools implements EditorToolProvider {
  #starting: Promise<void> | null = null;
  #startedAt = 0;
  #recorded = '';

  /**
   * Writes the editor's tool sets to the status store, where the language
   * server (another process) completes and checks `server/tool` names from;
   * only when they changed.
   */
  record(store: McpStatusStore): void {
    const bySet = new Map<string, ServerTool[]>();
    for (const tool of toolsNow()) bySet.set(tool.group, [...(bySet.get(tool.group) ?? []), { name: tool.tool, description: tool.description, readOnly: false }]);
    const entries = Object.fromEntries([...bySet].map(([set, tools]) => [editorIdentity(set), { name: set, file: '', checkedAt: Date.now(), ok: true, tools }]));
    const signature = JSON.stringify([...bySet]);
    if (signature === this.#recorded) return;
    this.#recorded = signature;
    try {
      store.record(entries);
    } catch {
      // A cache: only the language server's completions miss it.
    }
  }

  sets(): ReadonlySet<string> {
    return new Set(toolsNow().map((t) => t.group.toLowerCase()));
  }

  /**
   * VS Code lists an MCP server's tools only once the server has run. For a
   * name an agent uses that VS Code does not list, start the servers VS Code
   * knows, as its own chat does before a request that can use tools (its
   * "autostart"): a new or changed server is started only after the user
   * trusts it in VS Code's own dialog.
   */
  async prepare(missing: readonly string[], timeoutMs: number): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    if (!this.#starting && Date.now() - this.#startedAt > START_AGAIN_AFTER_MS) {
      this.#startedAt = Date.now();
      this.#starting = Promise.resolve(vscode.commands.executeCommand(START_SERVERS, '*', { waitForLiveTools: true }))
        .then(() => undefined, () => undefined)
        .finally(() => (this.#starting = null));
    }
    if (!this.#starting) return;
    await Promise.race([this.#starting, new Promise((r) => setTimeout(r, timeoutMs))]);
    // The extension host hears of the new tools a moment after the servers are live; a name that is simply wrong costs this grace only.
    const wanted = missing.map((m) => m.toLowerCase());
    const deadline = Date.now() + TOOLS_ARRIVE_MS;
    while (Date.now() < deadline && !wanted.every((w) => this.sets().has(w))) await new Promise((r) => setTimeout(r, 100));
  }

  tools(sets: readonly string[]): EditorTool[] {
    const wanted = new Set(sets.map((s) => s.toLowerCase()));
    return toolsNow().filter((t) => wanted.has(t.group.toLowerCase()));
  }

  /** The tools VS Code has now, as agent files name them (what a window reports to the agent host). */
  all(): EditorTool[] {
    return toolsNow();
  }

  /** Runs a tool the agent host asks for by id (the host knows the window's tools from `all()`). */
  invokeById(id: string, input: Record<string, unknown>, invocation: EditorInvocation): Promise<ToolOutput> {
    const tool = toolsNow().find((t) => t.id === id);
    if (!tool) return Promise.reject(new ToolCallError(`VS Code has no tool "${id}" any more.`));
    return this.invoke(tool, input, invocation);
  }

  async invoke(tool: EditorTool, input: Record<string, unknown>, invocation: EditorInvocation): Promise<ToolOutput> {
    const chat = invocation.runContext as ChatRunContext | undefined;
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    invocation.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await vscode.lm.invokeTool(tool.id, { input, toolInvocationToken: chat?.live() ? chat.toolInvocationToken : undefined }, cancel.token);
      return outputOf(result);
    } catch (error) {
      if (invocation.signal.aborted) throw error;
      if (error instanceof vscode.CancellationError) throw new ToolCallError(`The user did not allow ${tool.group}/${tool.tool} (VS Code asked to confirm it). Do not retry the same call; continue without it or explain what you need.`);
      throw new ToolCallError(`${tool.group}/${tool.tool} failed in VS Code: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      invocation.signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }
}
