import path from 'node:path';
import { parseArgs } from 'node:util';
import { PERMISSION_MODES } from '../core/config';
import { EngineError } from '../core/engine/errors';
import type { PermissionMode } from '../core/tools/permissions';
import { UsageError, userHome, type CliIO } from './command';
import { executeRun, interactiveTerminal, presentation, type Started } from './execute';
import { pluginDirFlags } from './pluginDirFlags';
import { decideProjectTrust } from './trust';
import { terminalText } from './render/terminalText';
import { cliScope, openSession, openWorktrees, type EngineSession } from './session';
import { attachToHost, noHost } from './hostConnection';
import type { AgentRuntime } from '../core/runtime/api';
import type { ScopeSpec } from '../core/runtime/scopeSpec';
import { cliSettings } from './settingsFiles';

/**
 * What `resume` and `send` share: both take an agent id and a text, and
 * both may continue an ended agent in this process, in the folder it ran
 * in, with a live tree.
 */

export const CONTINUE_OPTIONS_USAGE = `  --no-host                 continue it in this process even where the agent
                            host runs (which takes it otherwise)
  --permission-mode MODE    default | acceptEdits | bypassPermissions | plan
  --plugin-dir DIR          extra plugin root (repeatable); a relative DIR is
                            taken from the folder the agent ran in
  --trust-project           trust the project's files for this command: its
                            hooks and MCP servers run and its
                            .subagents/settings.json applies in full (see
                            "subagents run --help")`;

export interface ContinueArgs {
  agentId: string;
  text: string;
  json: boolean;
  pluginDirs: string[];
  permissionMode: PermissionMode | undefined;
  trustProject: boolean;
  noHost: boolean;
}

/** `<agentId> <text…>` and the shared flags; `what` names the text in a usage error. */
export function parseContinueArgs(args: string[], what: string): ContinueArgs {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'plugin-dir': { type: 'string', multiple: true },
      'permission-mode': { type: 'string' },
      'trust-project': { type: 'boolean', default: false },
      'no-host': { type: 'boolean', default: false },
    },
  });
  const [agentId, ...rest] = positionals;
  const text = rest.join(' ').trim();
  if (!agentId) throw new UsageError('missing <agentId>');
  if (!text) throw new UsageError(`missing <${what}>`);
  const mode = values['permission-mode'];
  if (mode !== undefined && ![...PERMISSION_MODES, 'plan'].includes(mode)) throw new UsageError(`unknown permission mode "${mode}"`);
  return {
    agentId,
    text,
    json: values.json ?? false,
    pluginDirs: values['plugin-dir'] ?? [],
    permissionMode: mode as PermissionMode | undefined,
    trustProject: values['trust-project'] ?? false,
    noHost: values['no-host'] ?? false,
  };
}

/** Where trust is decided for an agent that worked in `cwd`: an isolated agent's worktree stands for the repository it was made from. */
function trustedFolderOf(io: CliIO, agentId: string, cwd: string): string {
  const worktrees = openWorktrees(io);
  try {
    const record = worktrees.get(agentId);
    if (!record) return cwd;
    const rel = path.relative(record.path, cwd);
    return rel.startsWith('..') || path.isAbsolute(rel) ? cwd : path.join(record.repoRoot, rel);
  } finally {
    worktrees.dispose();
  }
}

/**
 * Continues an agent in `cwd` (with that folder's settings, once its trust is
 * decided) and follows it, as `run` does: in the agent host when one runs,
 * else in this process.
 */
export async function continueHere(
  io: CliIO,
  args: ContinueArgs,
  cwd: string,
  command: string,
  start: (runtime: AgentRuntime, scope: ScopeSpec, askApprovals: boolean) => Promise<Started>,
): Promise<number> {
  // Checked first: a --plugin-dir naming no folder is a usage error before anything is asked.
  const pluginDirs = pluginDirFlags(args.pluginDirs, cwd, userHome(io.env));
  const trust = await decideProjectTrust(io, trustedFolderOf(io, args.agentId, cwd), { flag: args.trustProject, interactive: interactiveTerminal(io, args.json) });
  const settings = cliSettings(io, cwd, { trust });
  const view = presentation(io, args.json);
  const scope = cliScope(io, { cwd, settings, trust, pluginDirs });
  const host = noHost(io, args.noHost) ? null : await attachToHost(io, { handlers: view.modeConsent ? { modeConsent: view.modeConsent } : {}, coalesceMs: args.json ? 0 : 80 });
  if (host) {
    try {
      return await executeRun(io, host, view, () => start(host, scope, view.interactive), command);
    } finally {
      host.close();
    }
  }
  let session: EngineSession;
  try {
    session = await openSession(io, { cwd, pluginDirs, modeConsent: view.modeConsent, coalesceMs: args.json ? 0 : 80, settings, trust });
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    io.stderr.write(`subagents ${command}: ${terminalText(error.message)}\n`);
    return 1;
  }
  try {
    return await executeRun(io, session.runtime, view, () => start(session.runtime, session.scope, view.interactive), command);
  } finally {
    await session.close();
  }
}
