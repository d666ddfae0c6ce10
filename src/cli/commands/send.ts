import { mailTime, newMailId } from '../../core/engine/messaging/mail';
import { isActiveStatus } from '../../protocol/runEvents';
import { attachToHost, noHost } from '../hostConnection';
import { lookUpAgent } from '../agentLookup';
import type { CliCommand, CliIO } from '../command';
import { CONTINUE_OPTIONS_USAGE, continueHere, parseContinueArgs } from '../continueHere';
import { terminalLine } from '../render/terminalText';
import { openHistory } from '../session';
import { cliSettings } from '../settingsFiles';

const USAGE = `Usage: subagents send <agentId|teammate> <message…> [options]

Sends a message to an agent. An agent at work in the agent host (a run VS
Code started, or a "subagents run" the host took) gets it from the host at
once and reads it at its next turn boundary; one at work in another process
(a "subagents run" in a terminal's own process) finds it in the mailbox beside the run history,
which that process watches. Either way this command ends at once. An agent
that has ended is continued with the message (in the host when one runs),
with its whole conversation and a live tree, as "subagents resume" does.
Agent ids are shown by "subagents runs". A teammate goes by its team name
too: the one of that name at work, else the newest run's.

Options (the first three for an agent continued here):
${CONTINUE_OPTIONS_USAGE}
  --json                    queued: one JSON line; continued: NDJSON events, the
                            last line the result
Exit code: 0 when the message was sent or queued (or the continued agent completed),
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
    const { text } = opts;
    const history = await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }));
    const lookup = await lookUpAgent(history, opts.agentId, 'send');
    if ('missing' in lookup) {
      await history.close();
      io.stderr.write(lookup.missing);
      return 2;
    }
    const { node } = lookup.found;
    // The id of the agent meant (the argument may have been a teammate's name).
    const { agentId } = node;
    // At work in the agent host: the host hands it to the agent directly.
    const host = noHost(io, opts.noHost) ? null : await attachToHost(io);
    const hosted = host !== null;
    if (host) {
      try {
        const live = host.store.agent(agentId);
        if (live && isActiveStatus(live.status)) {
          await history.close();
          const outcome = await host.send({ agentId, text, via: 'cli' });
          if (outcome.delivery === 'elsewhere') {
            io.stdout.write(opts.json ? `${JSON.stringify({ delivery: 'queued', agentId, runId: node.runId, owner: outcome.owner })}\n` : `${queuedLine(node.agentName, agentId, outcome.owner)}\n`);
            return 0;
          }
          const { handle } = outcome;
          io.stdout.write(
            opts.json
              ? `${JSON.stringify({ delivery: outcome.delivery === 'queued' ? 'sent' : 'continued', agentId, runId: handle.runId })}\n`
              : `${outcome.delivery === 'queued' ? `Sent to ${terminalLine(node.agentName)} (${agentId}), at work in the agent host: it reads the message at its next turn.` : `${terminalLine(node.agentName)} (${agentId}) had just ended: the message continues it in the agent host.`}\n`,
          );
          return 0;
        }
      } finally {
        host.close();
      }
    }
    // One step under the history's lock: queued for the process that works on (or holds) the run, which reads the
    // mailbox once more before it lets the run go. Otherwise, without a host, the run is taken here, so the next send
    // queues to us; with one, the host continues the agent (deciding the same under the same lock).
    const entry = { id: newMailId(), agentId, runId: node.runId, kind: 'message' as const, text, from: null, via: 'cli', sentAt: mailTime() };
    const outcome = hosted ? { queued: await history.queueIfBusy(entry) } : await history.queueOrClaim(entry);
    if ('queued' in outcome && outcome.queued) {
      await history.close();
      const owner = outcome.queued;
      io.stdout.write(opts.json ? `${JSON.stringify({ delivery: 'queued', agentId, runId: node.runId, messageId: entry.id, owner })}\n` : `${queuedLine(node.agentName, agentId, owner)}\n`);
      return 0;
    }
    // Nobody works on it: continue it where it ran, in the host when one runs, else here with the history that holds the run.
    if (hosted) await history.close();
    return continueHere(io, opts, node.cwd, 'send', hosted ? null : history, async (runtime, scope, askApprovals) => {
      const outcome = await runtime.send({ agentId, text, via: 'cli', scope, permissionMode: opts.permissionMode, askApprovals });
      if (outcome.delivery !== 'elsewhere') return outcome.handle;
      // Another process took the run up meanwhile: it gets the message instead.
      return { handedOver: queuedLine(node.agentName, agentId, outcome.owner), json: { delivery: 'queued', agentId, runId: node.runId, owner: outcome.owner } };
    });
  },
};
