import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Settings } from '../core/config';
import { pluginRoots } from '../core/mcp/configFiles';
import type { McpHostOptions } from '../core/mcp/host';
import { mcpLimits } from '../core/mcp/limits';
import { McpStatusStore, statusFile } from '../core/mcp/status';
import type { ProjectTrust } from '../core/trust/projectTrust';
import { userHome, type CliIO } from './command';
import { TRUSTED_PROJECTS, userSettingsFile } from './settingsFiles';

/**
 * How the CLI runs MCP servers, the same for `run`, `resume` and
 * `agents --check-mcp`: the folder's trust as decided for the command, the
 * command's environment, `.vscode/mcp.json` read and run by the CLI itself
 * (outside VS Code nobody else runs those servers), and the status store
 * the listings read.
 */
export function cliMcpOptions(
  io: CliIO,
  opts: { cwd: string; settings: Settings; pluginDirs: readonly string[]; trust: ProjectTrust; ownSecrets: () => ReadonlyArray<string | null | undefined> },
): McpHostOptions {
  const home = userHome(io.env);
  return {
    trust: opts.trust,
    trustHint: `pass --trust-project, or add the folder to "${TRUSTED_PROJECTS}" in ${userSettingsFile(io.env)}`,
    env: io.env,
    home,
    vscodeWorkspace: true,
    plugins: () => pluginRoots({ home, cwd: opts.cwd, pluginDirs: [...opts.settings.pluginDirs, ...opts.pluginDirs], loadClaudePlugins: opts.settings.loadClaudePlugins }),
    limits: () => mcpLimits(opts.settings),
    ownSecrets: opts.ownSecrets,
    status: new McpStatusStore(statusFile(io.env, home)),
  };
}

/** The files an agent listing's MCP part depends on, as one stamp: a change to any gives a new answer. */
export function mcpListingStamp(io: CliIO, cwd: string): string {
  const home = userHome(io.env);
  const files = [statusFile(io.env, home), path.join(home, '.claude.json'), path.join(home, '.gemini', 'settings.json'), path.join(home, '.copilot', 'mcp-config.json')];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    for (const relative of ['.mcp.json', path.join('.vscode', 'mcp.json'), path.join('.gemini', 'settings.json'), path.join('.claude', 'settings.json'), path.join('.claude', 'settings.local.json')]) {
      const file = path.join(dir, relative);
      if (existsSync(file)) files.push(file);
    }
    if (path.dirname(dir) === dir) break;
  }
  return files
    .map((file) => {
      try {
        const stat = statSync(file);
        return `${file}:${stat.size}:${stat.mtimeMs}`;
      } catch {
        return `${file}:-`;
      }
    })
    .join('|');
}
