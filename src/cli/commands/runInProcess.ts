import { EngineError } from '../../core/engine/errors';
import type { Settings } from '../../core/config';
import type { StartRequest } from '../../core/runtime/api';
import type { ScopeCatalog } from '../../core/runtime/scope';
import { projectTrust, type ScopeSpec, type TrustSpec } from '../../core/runtime/scopeSpec';
import { TRUST_EVERYTHING } from '../../core/trust/projectTrust';
import type { CliIO } from '../command';
import { executeRun, type Presentation } from '../execute';
import { terminalText } from '../render/terminalText';
import { openSession } from '../session';
import { startAgentOrTeam } from '../teamStart';

/**
 * `subagents run` in its own process (no agent host, or --no-host): the
 * engine's half of the command, in the engine bundle, which the command
 * (in dist/cli-agents.cjs) loads only when it gets here.
 */
export async function runInProcess(
  io: CliIO,
  view: Presentation,
  opts: {
    cwd: string;
    pluginDirs: string[];
    settings: Settings;
    /**
     * The trust decided for the command, as data: it crosses from the
     * command's bundle into this one, whose classes are copies of its own.
     */
    trust: TrustSpec;
    json: boolean;
    /** The agent whose MCP servers start while the session opens; none for plan mode or an isolated run. */
    firstAgent: string | undefined;
    request(scope: ScopeSpec): StartRequest;
    /** Where a team's members work unless its file says (the teams.isolation setting). */
    teamsIsolation: 'worktree' | 'none';
    /** The folder's agents as the command discovered them already, for the scope they were discovered for. */
    catalog?: (spec: ScopeSpec) => Promise<ScopeCatalog> | undefined;
  },
): Promise<number> {
  let session;
  try {
    const first = opts.firstAgent === undefined ? undefined : { agent: opts.firstAgent };
    session = await openSession(io, { cwd: opts.cwd, pluginDirs: opts.pluginDirs, modeConsent: view.modeConsent, coalesceMs: opts.json ? 0 : 80, settings: opts.settings, trust: ownTrust(opts.trust), first, catalog: opts.catalog });
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    io.stderr.write(`subagents run: ${terminalText(error.message)}\n`);
    return 1;
  }
  const { runtime, scope } = session;
  try {
    return await executeRun(io, runtime, view, () => startAgentOrTeam(io, runtime, opts.request(scope), opts.cwd, opts.teamsIsolation), 'run');
  } finally {
    await session.close();
  }
}

/** The trust decision as this bundle's own objects (--trust-project stays the one decision that trusts every folder). */
function ownTrust(spec: TrustSpec) {
  return spec.kind === 'all' ? TRUST_EVERYTHING : projectTrust(spec);
}
