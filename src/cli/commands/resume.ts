import { parseArgs } from 'node:util';
import { EngineError } from '../../core/engine/errors';
import { UsageError, userHome, type CliCommand, type CliIO } from '../command';
import { executeRun, interactiveTerminal, presentation } from '../execute';
import { pluginDirFlags } from '../pluginDirFlags';
import { decideProjectTrust } from '../trust';
import { openHistory, openSession } from '../session';
import { terminalText } from '../render/terminalText';
import { PERMISSION_MODES } from '../../core/config';
import { cliSettings } from '../settingsFiles';
import type { PermissionMode } from '../../core/tools/permissions';

const USAGE = `Usage: subagents resume <agentId> <prompt…> [options]

Continues an agent that ended (completed, failed, stopped or interrupted) with
its whole earlier conversation and a follow-up prompt. Agent ids are shown by
"subagents runs" and at the end of "subagents run".

Options:
  --permission-mode MODE    default | acceptEdits | bypassPermissions | plan
  --plugin-dir DIR          extra plugin root (repeatable); a relative DIR is
                            taken from the folder the agent ran in
  --trust-project           trust the project's files for this command: its
                            hooks run and its .subagents/settings.json applies
                            in full (see "subagents run --help")
  --json                    NDJSON events on stdout; the last line is the result`;

export const resumeCommand: CliCommand = {
  name: 'resume',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        'plugin-dir': { type: 'string', multiple: true },
        'permission-mode': { type: 'string' },
        'trust-project': { type: 'boolean', default: false },
      },
    });
    const [agentId, ...rest] = positionals;
    const prompt = rest.join(' ').trim();
    if (!agentId) throw new UsageError('missing <agentId>');
    if (!prompt) throw new UsageError('missing <prompt>');
    const mode = values['permission-mode'];
    if (mode !== undefined && ![...PERMISSION_MODES, 'plan'].includes(mode)) throw new UsageError(`unknown permission mode "${mode}"`);

    // The agent's definition, and the settings it runs with, are looked up where it ran; the shared history follows the user file alone.
    const archived = await (await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }))).load(agentId);
    const cwd = archived && archived !== 'expired' ? archived.node.cwd : io.cwd;
    const pluginDirs = pluginDirFlags(values['plugin-dir'] ?? [], cwd, userHome(io.env));
    const trust = await decideProjectTrust(io, cwd, { flag: values['trust-project'] ?? false, interactive: interactiveTerminal(io, values.json ?? false) });
    const settings = cliSettings(io, cwd, { trust });
    const view = presentation(io, values.json ?? false);
    let session;
    try {
      session = await openSession(io, { cwd, pluginDirs, gate: view.gate, modeConsent: view.modeConsent, coalesceMs: values.json ? 0 : 80, settings, trust });
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      io.stderr.write(`subagents resume: ${terminalText(error.message)}\n`);
      return 1;
    }
    try {
      const permissionMode = mode as PermissionMode | undefined;
      return await executeRun(io, session, view, () => session.engine.sendFollowUp(agentId, prompt, { permissionMode }), 'resume');
    } finally {
      await session.close();
    }
  },
};
