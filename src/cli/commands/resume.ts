import type { CliCommand, CliIO } from '../command';
import { CONTINUE_OPTIONS_USAGE, continueHere, parseContinueArgs } from '../continueHere';
import { openHistory } from '../session';
import { cliSettings } from '../settingsFiles';

const USAGE = `Usage: subagents resume <agentId> <prompt…> [options]

Continues an agent that ended (completed, failed, stopped or interrupted) with
its whole earlier conversation and a follow-up prompt. Agent ids are shown by
"subagents runs" and at the end of "subagents run". Messages sent to it that
it never read come first.

Options:
${CONTINUE_OPTIONS_USAGE}
  --json                    NDJSON events on stdout; the last line is the result`;

export const resumeCommand: CliCommand = {
  name: 'resume',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const opts = parseContinueArgs(args, 'prompt');
    // The agent's definition, and the settings it runs with, are looked up where it ran; the shared history follows the user file alone.
    const archived = await (await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }))).load(opts.agentId);
    const cwd = archived && archived !== 'expired' ? archived.node.cwd : io.cwd;
    return continueHere(io, opts, cwd, 'resume', (runtime, scope, askApprovals) => runtime.followUp({ scope, agentId: opts.agentId, prompt: opts.text, permissionMode: opts.permissionMode, askApprovals }));
  },
};
