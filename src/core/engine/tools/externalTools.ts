import type { RuntimeTool } from '../../tools/runtimeTool';
import type { AgentRun, EmitEvent } from '../tree/agentRun';

/**
 * Puts an agent's MCP and editor tools (src/core/mcp) into its tool map,
 * after the runtime's own, and keeps them current when a server changes its
 * tool list: the query loop reads the map before every model turn. Every
 * warning (a server that could not start, a name that reaches nothing)
 * becomes a `notice` event, which every surface shows (and an info line
 * in the log).
 */
export async function mountExternalTools(
  run: AgentRun,
  tools: Map<string, RuntimeTool>,
  emit: EmitEvent,
  log: (level: 'info', message: string) => void,
): Promise<{ fatal: string | null; dispose(): void }> {
  const tree = run.tree.mcp;
  if (!tree) return { fatal: null, dispose: () => undefined };
  const external = await tree.toolsFor({ agentName: run.agentName, definition: run.definition, cwd: run.cwd, planMode: run.planMode, runContext: run.tree.runContext });
  for (const message of external.warnings) {
    emit({ type: 'notice', level: 'warning', message });
    log('info', message);
  }
  let mounted: string[] = [];
  const mount = (next: RuntimeTool[]) => {
    for (const name of mounted) tools.delete(name);
    mounted = [];
    for (const tool of next) {
      // The runtime's own tools keep their names; naming.ts gives MCP tools prefixed names that cannot clash with them.
      if (tools.has(tool.name)) continue;
      tools.set(tool.name, tool);
      mounted.push(tool.name);
    }
  };
  mount(external.tools);
  const off = external.onChange(mount);
  return {
    fatal: external.fatal,
    dispose: () => {
      off();
      external.dispose();
    },
  };
}
