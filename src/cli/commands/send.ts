import { newMailId } from '../../core/engine/mail';
import { lookUpAgent, ownerElsewhere } from '../agentLookup';
import type { CliCommand, CliIO } from '../command';
import { CONTINUE_OPTIONS_USAGE, continueHere, parseContinueArgs } from '../continueHere';
import { terminalLine } from '../render/terminalText';
import { openHistory } from '../session';
import { cliSettings } from '../settingsFiles';

const USAGE = `Usage: subagents send <agentId> <message…> [options]

Sends a message to an agent. An agent at work in another process (another
terminal's "subagents run", a VS Code window) reads it at its next turn
boundary: the message is left in the mailbox beside the run history, which
that process watches, and this command ends at once. An agent that has
ended is continued with the message here, with its whole conversation and a
live tree, as "subagents resume" does. Agent ids are shown by "subagents runs".

Options (the first three for an agent continued here):
${CONTINUE_OPTIONS_USAGE}
  --json                    queued: one JSON line; continued: NDJSON events, the
                            last line the result
Exit code: 0 when the message was queued (or the continued agent completed),
1 when a continued agent did not complete, 2 for bad arguments or an agent id
the history does not know (the known agents are listed).`;

function queuedLine(agentName: string, agentId: string, owner: string): string {
  return `Queued for ${terminalLine(agentName)} (${agentId}), at work in ${owner}: it reads the message at its next turn.`;
}

export const sendCommand: CliCommand = {
  name: 'send',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const opts = parseContinueArgs(args, 'message');
    const { agentId, text } = opts;
    const history = await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }));
    const lookup = await lookUpAgent(history, agentId, 'send');
    if ('missing' in lookup) {
      io.stderr.write(lookup.missing);
      return 2;
    }
    const { node } = lookup.found;
    const owner = ownerElsewhere(lookup.found);
    if (owner) {
      // Another process works on it: the message waits in the mailbox that process watches.
      const entry = { id: newMailId(), agentId, runId: node.runId, kind: 'message' as const, text, from: null, via: 'cli', sentAt: Date.now() };
      await history.mailbox.post(entry);
      await history.close();
      io.stdout.write(opts.json ? `${JSON.stringify({ delivery: 'queued', agentId, runId: node.runId, messageId: entry.id, owner })}\n` : `${queuedLine(node.agentName, agentId, owner)}\n`);
      return 0;
    }
    await history.close();
    // Nobody works on it: continue it here, where it ran.
    return continueHere(io, opts, node.cwd, 'send', async (session, askApprovals) => {
      const outcome = await session.runtime.send({ agentId, text, via: 'cli', scope: session.scope, permissionMode: opts.permissionMode, askApprovals });
      if (outcome.delivery !== 'elsewhere') return outcome.handle;
      // Another process took the run up meanwhile: it gets the message instead.
      return { handedOver: queuedLine(node.agentName, agentId, outcome.owner), json: { delivery: 'queued', agentId, runId: node.runId, owner: outcome.owner } };
    });
  },
};
