import path from 'node:path';
import type { AgentDefinition } from '../agents/definition';
import type { ProjectTrust } from '../trust/projectTrust';
import { readConfiguredServers, type ConfigLocations, type NamedServer } from './configFiles';
import { looksSecret } from './launch';
import { planAgentServers, type PlannedServer } from './plan';
import { editorIdentity, serverIdentity, type StatusMap } from './status';

/**
 * What the agent listings show of each agent's MCP servers without starting
 * any: which servers it gets (its plan), where each is declared, how it is
 * started (secrets left out), and whether it was reachable the last time a
 * run started it (the status store), or why it would not start at all.
 */

export type ServerState =
  /** Started and listed its tools the last time a run asked for it. */
  | 'reachable'
  /** Could not be started the last time. */
  | 'failed'
  /** Never started yet on this machine. */
  | 'unchecked'
  /** Declared in a project file of a folder that is not trusted: will not start. */
  | 'untrusted'
  /** One of the editor's tool sets (VS Code runs it). */
  | 'editor';

export interface ServerListing {
  name: string;
  /** `agent`: the agent file itself; otherwise the configuration it comes from. */
  source: string;
  file: string;
  transport: 'stdio' | 'http' | 'sse' | 'editor';
  /** The command line or URL, as written (variables unexpanded), literal secrets redacted. */
  target: string;
  state: ServerState;
  /** The tools it offered when last started (names). */
  tools?: string[];
  error?: string;
  checkedAt?: number;
}

export interface AgentServers {
  servers: ServerListing[];
  /** Names the agent uses that reach nothing, and servers it declares but cannot use. */
  problems: string[];
}

export interface ListingOptions {
  locations: ConfigLocations;
  trust: ProjectTrust;
  statuses: StatusMap;
  editorSets: ReadonlySet<string> | null;
  inheritClaudeSession: boolean;
}

/** Secret values written into a file are not repeated by a listing. */
function shown(name: string, value: string): string {
  return looksSecret(name) && !/^\$\{?[A-Za-z_]/.test(value) && !value.includes('${') ? '[redacted]' : value;
}

function target(server: PlannedServer): string {
  const { spec } = server;
  if (spec.transport === 'stdio') {
    const env = Object.entries(spec.env).map(([k, v]) => `${k}=${shown(k, v)}`);
    return [...env, spec.command ?? '', ...spec.args.map((arg, i) => (looksSecret(spec.args[i - 1] ?? '') ? '[redacted]' : arg))].join(' ');
  }
  return spec.url ?? '';
}

export async function listAgentServers(agents: readonly AgentDefinition[], options: ListingOptions): Promise<Map<string, AgentServers>> {
  let configured: Promise<NamedServer[]> | null = null;
  const read = () => (configured ??= readConfiguredServers(options.locations, { warn: () => undefined }));
  const out = new Map<string, AgentServers>();
  for (const agent of agents) {
    const plan = await planAgentServers({ definition: agent, cwd: options.locations.cwd, configured: read, editorSets: options.editorSets, inheritClaudeSession: options.inheritClaudeSession });
    if (plan.servers.length === 0 && plan.editorSets.length === 0 && plan.problems.length === 0) continue;
    const servers: ServerListing[] = plan.servers.map((server) => {
      const status = options.statuses[serverIdentity(server.name, server.spec, server.folder)];
      const base = { name: server.name, source: server.source, file: server.file, transport: server.spec.transport, target: target(server) };
      if (server.projectFile && !options.trust.isTrusted(path.dirname(server.file))) return { ...base, state: 'untrusted' };
      if (!status) return { ...base, state: 'unchecked' };
      return status.ok
        ? { ...base, state: 'reachable', tools: (status.tools ?? []).map((t) => t.name), checkedAt: status.checkedAt }
        : { ...base, state: 'failed', ...(status.error ? { error: status.error } : {}), checkedAt: status.checkedAt };
    });
    for (const set of plan.editorSets) {
      const status = options.statuses[editorIdentity(set)];
      servers.push({ name: set, source: 'editor', file: '', transport: 'editor', target: 'VS Code', state: 'editor', ...(status?.tools ? { tools: status.tools.map((t) => t.name) } : {}) });
    }
    out.set(agent.name, { servers, problems: plan.problems });
  }
  return out;
}

/** One line per server, for a terminal or a tooltip: `github (.mcp.json) — reachable, 12 tools`. */
export function describeServer(server: ServerListing, now = Date.now()): string {
  const where = server.source === 'agent' ? 'its file' : server.source === 'editor' ? 'VS Code' : path.basename(server.file) || server.source;
  const ago = server.checkedAt ? `, checked ${formatAgo(now - server.checkedAt)}` : '';
  switch (server.state) {
    case 'reachable':
      return `${server.name} (${where}) — reachable, ${server.tools?.length ?? 0} tool${server.tools?.length === 1 ? '' : 's'}${ago}`;
    case 'failed':
      return `${server.name} (${where}) — failed to start${ago}: ${server.error ?? 'no reason recorded'}`;
    case 'unchecked':
      return `${server.name} (${where}) — not started yet`;
    case 'untrusted':
      return `${server.name} (${where}) — not started: the folder is not trusted`;
    case 'editor':
      return `${server.name} (VS Code) — run by VS Code${server.tools ? `, ${server.tools.length} tools` : ''}`;
  }
}

export function formatAgo(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}
