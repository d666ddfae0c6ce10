import path from 'node:path';
import { AgentCatalog } from '../agents/catalog/catalog';
import type { AgentDefinition } from '../agents/definition';
import { readConfiguredServers } from '../mcp/configFiles';

/**
 * The MCP servers a project's own files would start (project trust asks
 * about them before a CLI run, src/core/trustProbes/projectCode.ts): servers
 * declared in its agent files, its `.mcp.json`, `.vscode/mcp.json` and
 * `.gemini/settings.json`. Each is a program the project chooses, so none
 * starts until the folder is trusted.
 */

/** The project folder of an agent file: the folder holding its `.claude/agents` (or other family) dir. */
function projectFolder(file: string): string {
  const parts = file.split(/[\\/]/);
  const family = parts.findLastIndex((part, i) => /^\.(claude|github|gemini|codex|omp)$/.test(part) && i < parts.length - 1);
  return family > 0 ? parts.slice(0, family).join(path.sep) || path.sep : path.dirname(file);
}

/** What trustProbes/projectCode.ts calls a ProjectCode (written out here: that module lists this probe). */
interface ServersCode {
  kind: 'mcpServers';
  folder: string;
  file: string;
  what: string;
}

/** The project's and the user's agents, read for the probe alone: no plugins, no bundled agents, nothing watched. */
async function discoverAgents(cwd: string, home: string): Promise<readonly AgentDefinition[]> {
  // The catalog rather than discovery itself: the CLI's engine bundle shares it with the agents bundle.
  const catalog = await AgentCatalog.create({ cwd, home, pluginDirs: [], loadClaudePlugins: false, bundledDir: null, watch: false });
  catalog.dispose();
  return catalog.agents;
}

export async function mcpServersProbe(cwd: string, home: string, context: { agents?: () => Promise<readonly AgentDefinition[]> } = {}): Promise<ServersCode[]> {
  const found: ServersCode[] = [];
  // Both at once: the agent files are read while the MCP configuration files are.
  const [configured, agents] = await Promise.all([
    readConfiguredServers({ cwd, home, vscodeWorkspace: true }, { warn: () => undefined }),
    context.agents ? context.agents() : discoverAgents(cwd, home),
  ]);
  const byFile = new Map<string, { folder: string; names: string[] }>();
  for (const server of configured) {
    if (!server.projectFile) continue;
    const entry = byFile.get(server.file) ?? { folder: server.folder, names: [] };
    entry.names.push(server.name);
    byFile.set(server.file, entry);
  }
  // Only project agents count, and those are the same whatever else a catalog reads (plugins, bundled agents): theirs come first.
  for (const agent of agents) {
    if (agent.source !== 'project') continue;
    const names = (agent.mcp ?? []).filter((d) => 'spec' in d).map((d) => d.name);
    if (names.length > 0) byFile.set(agent.filePath, { folder: projectFolder(agent.filePath), names });
  }
  for (const [file, { folder, names }] of byFile) {
    found.push({ kind: 'mcpServers', folder, file, what: `MCP server${names.length === 1 ? '' : 's'} ${names.map((n) => `"${n}"`).join(', ')}` });
  }
  return found;
}
