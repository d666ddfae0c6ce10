import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeCacheFileSync } from '../atomicFile';
import type { McpServerSpec } from '../agents/mcpServers/spec';

/**
 * What was last seen of each MCP server, kept on disk for the places that
 * must not start servers themselves: the agent listings (`subagents agents`,
 * the Agents view) show whether a server was reachable and what it offered,
 * and the language server completes and checks tool names from here. Every
 * start a run makes (CLI or VS Code) records its outcome; a server is known
 * by its declaration (name, settings as written, folder), not by secrets
 * its variables resolve to. A cache: unreadable means empty.
 */

export interface ServerTool {
  name: string;
  description: string;
  readOnly: boolean;
}

export interface ServerStatus {
  name: string;
  /** The file declaring it. */
  file: string;
  checkedAt: number;
  ok: boolean;
  /** Why it could not be started (ok: false). */
  error?: string;
  tools?: ServerTool[];
}

/** Also the editor's tool sets (VS Code), under `editor:<set>`, so tools only the editor has can be completed. */
export type StatusMap = Record<string, ServerStatus>;

/** How many statuses are kept; the oldest go first. */
const MAX_ENTRIES = 500;
/** Descriptions are kept short: they are for hovers. */
const MAX_DESCRIPTION = 300;

export function statusFile(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'subagents', 'mcp-servers.json');
}

/** The key of a declared server: the same in every process that reads the same declaration. */
export function serverIdentity(name: string, spec: McpServerSpec, folder: string): string {
  return createHash('sha256').update(JSON.stringify([name, spec, folder])).digest('hex').slice(0, 20);
}

export function editorIdentity(set: string): string {
  return `editor:${set.toLowerCase()}`;
}

export class McpStatusStore {
  constructor(readonly file: string) {}

  read(): StatusMap {
    try {
      const data: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as StatusMap) : {};
    } catch {
      return {};
    }
  }

  /** Records outcomes (merged with what other processes recorded meanwhile). */
  record(entries: Record<string, ServerStatus>): void {
    const all = { ...this.read() };
    for (const [identity, status] of Object.entries(entries)) {
      all[identity] = { ...status, ...(status.tools ? { tools: status.tools.map((t) => ({ ...t, description: t.description.slice(0, MAX_DESCRIPTION) })) } : {}) };
    }
    const kept = Object.entries(all).sort((a, b) => b[1].checkedAt - a[1].checkedAt).slice(0, MAX_ENTRIES);
    writeCacheFileSync(this.file, JSON.stringify(Object.fromEntries(kept)));
  }
}
