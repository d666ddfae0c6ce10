import type { RuntimeTool } from '../tools/runtimeTool';
import { ToolCallError } from '../tools/runtimeTool';
import { loadSdk, McpConnectionLost, McpStartError, type McpConnection, type McpToolInfo } from './connection';
import type { EditorTool, EditorToolProvider } from './editorTools';
import type { McpLimits } from './limits';
import { mcpResultOutput, runtimeExternalTool } from './mcpTool';
import { uniqueToolNames, type ToolGroupKind } from './naming';
import type { AgentMcpPlan, PlannedServer } from './plan';
import { selects, type ToolPattern } from '../agents/mcpServers/toolPatterns';

/**
 * One agent's MCP and editor tools: the tools of its running servers and of
 * the editor's sets its plan names, filtered by the plan (its `tools` /
 * `disallowedTools`, each server's own enable/disable lists, plan mode) and
 * named for the model (naming.ts). Rebuilt when a server changes its tool
 * list; the engine reads the current set before every model turn.
 */

export interface AgentMcpTools {
  tools: RuntimeTool[];
  /** One message per server or name the agent could not get. */
  warnings: string[];
  /** Set when a server the file marks required could not start: the agent does not run. */
  fatal: string | null;
  /** Told with the new set when a server's tool list changed. */
  onChange(listener: (tools: RuntimeTool[]) => void): () => void;
  dispose(): void;
}

interface ToolsetInput {
  agentName: string;
  plan: AgentMcpPlan;
  running: Array<{ server: PlannedServer; connection: McpConnection }>;
  editor: EditorToolProvider | null;
  planMode: boolean;
  limits: McpLimits;
  runContext: unknown;
  warnings: string[];
  fatal: string | null;
}

function picked(allow: ToolPattern[] | null, deny: ToolPattern[], server: string, tool: string): boolean {
  if (deny.some((p) => selects(p, server, tool))) return false;
  return allow === null || allow.some((p) => selects(p, server, tool));
}

/** The server's own enable / disable lists (Copilot `tools`, Gemini `include_tools`, Codex `enabled_tools` …). */
function enabledByServer(server: PlannedServer, tool: string): boolean {
  const { include, exclude } = server.spec;
  return (include === null || include.includes(tool)) && !exclude.includes(tool);
}

function callError(error: unknown, server: string, tool: string, timeoutMs: number, sdk: Awaited<ReturnType<typeof loadSdk>>): Error {
  if (error instanceof McpConnectionLost) {
    return new ToolCallError(`MCP server "${server}" stopped during the call to ${tool}: ${error.message}. It is started again on the next call; the call may or may not have taken effect.`);
  }
  if (error instanceof McpStartError) return new ToolCallError(`MCP server "${server}" is not running: ${error.message}.`);
  if (error instanceof sdk.McpError) {
    if (error.code === sdk.ErrorCode.RequestTimeout) {
      return new ToolCallError(`MCP server "${server}" did not answer ${tool} within ${Math.round(timeoutMs / 1000)} s (subagents.mcp.callTimeoutSeconds); the call was cancelled.`);
    }
    return new ToolCallError(`MCP server "${server}" refused the call to ${tool}: ${error.message.replace(/^MCP error -?\d+: /, '')}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

export function agentToolset(input: ToolsetInput): AgentMcpTools {
  const listeners = new Set<(tools: RuntimeTool[]) => void>();
  const unsubscribe: Array<() => void> = [];
  const { plan, limits } = input;

  const mcpCall = (server: PlannedServer, connection: McpConnection, tool: McpToolInfo) => async (args: Record<string, unknown>, context: { signal: AbortSignal }) => {
    const timeoutMs = server.spec.callTimeoutMs ?? limits.callTimeoutMs;
    const sdk = await loadSdk();
    let result;
    try {
      result = await connection.call(tool.name, args, { signal: context.signal, timeoutMs });
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw callError(error, server.name, tool.name, timeoutMs, sdk);
    }
    return mcpResultOutput(result, `${tool.name} (MCP server "${server.name}")`);
  };

  const compose = (): RuntimeTool[] => {
    const entries: Array<{ kind: ToolGroupKind; group: string; tool: string; build: (name: string) => RuntimeTool }> = [];
    for (const { server, connection } of input.running) {
      for (const tool of [...connection.tools].sort((a, b) => a.name.localeCompare(b.name))) {
        if (!enabledByServer(server, tool.name) || !picked(plan.allow, plan.deny, server.name, tool.name)) continue;
        // Plan mode keeps what cannot change anything: tools the server marks read-only.
        if (input.planMode && !tool.readOnly) continue;
        entries.push({
          kind: 'mcp',
          group: server.name,
          tool: tool.name,
          build: (name) =>
            runtimeExternalTool({
              modelName: name,
              origin: { kind: 'mcp', server: server.name, tool: tool.name },
              description: tool.description,
              inputSchema: tool.inputSchema,
              readOnly: tool.readOnly,
              gated: true,
              call: mcpCall(server, connection, tool),
            }),
        });
      }
    }
    // The editor's tools: it asks for its own confirmations, and what they change cannot be told, so plan mode has none.
    if (input.editor && plan.editorSets.length > 0 && !input.planMode) {
      const editor = input.editor;
      for (const tool of editor.tools(plan.editorSets)) {
        if (!picked(plan.allow, plan.deny, tool.group, tool.tool)) continue;
        entries.push({
          kind: tool.kind === 'mcp' ? 'mcp' : 'vscode',
          group: tool.group,
          tool: tool.tool,
          build: (name) =>
            runtimeExternalTool({
              modelName: name,
              origin: { kind: 'editor', server: tool.group, tool: tool.tool },
              description: tool.description,
              inputSchema: tool.inputSchema,
              readOnly: false,
              gated: false,
              call: (args, context) => editor.invoke(tool as EditorTool, args, { ...context, runContext: input.runContext }),
            }),
        });
      }
    }
    const names = uniqueToolNames(entries, new Set());
    return entries.map((entry, i) => entry.build(names[i]!));
  };

  const toolset: AgentMcpTools = {
    tools: compose(),
    warnings: input.warnings,
    fatal: input.fatal,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      for (const off of unsubscribe.splice(0)) off();
      listeners.clear();
    },
  };
  const refresh = () => {
    toolset.tools = compose();
    for (const listener of listeners) listener(toolset.tools);
  };
  for (const { connection } of input.running) unsubscribe.push(connection.onToolsChanged(refresh));
  if (input.editor?.onDidChange && plan.editorSets.length > 0) unsubscribe.push(input.editor.onDidChange(refresh));
  return toolset;
}
