import { parseArgs } from 'node:util';
import { mailTime, newMailId, type MailEntry } from '../../core/engine/messaging/mail';
import type { Mailbox } from '../../core/runs/mailbox';
import { lookUpAgent, ownerElsewhere } from '../agentLookup';
import { isActiveStatus } from '../../protocol/runEvents';
import { attachToHost } from '../hostConnection';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { terminalLine } from '../render/terminalText';
import { openHistory } from '../session';
import { cliSettings } from '../settingsFiles';

const USAGE = `Usage: subagents stop <agentId|teammate> [--all] [--json]

Stops an agent at work, with every agent it started; its parent is told the
user stopped it (with the output so far) and goes on, and its siblings are
untouched. With --all, stops the agent's whole run. A teammate goes by its
team name too (the one of that name at work). An agent at work in the
agent host (a run VS Code started, a "subagents run" the host took) is
stopped by the host at once; one at work in another process (a "subagents
run" in a terminal's own process) gets the request through the mailbox beside the run history,
which that process watches, and this command waits a few seconds for it to
be taken.

Exit code: 0 when the agent was stopped, or the stop taken (or queued), 1 when the agent (or its
run, with --all) is not at work, 2 for bad arguments or an agent id the
history does not know (the known agents are listed).`;

/** How long to wait for the owning process to take the stop. */
const TAKE_WAIT_MS = 5000;

export const stopCommand: CliCommand = {
  name: 'stop',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { all: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, 'trust-project': { type: 'boolean', default: false } },
    });
    const [idOrName, extra] = positionals;
    if (!idOrName) throw new UsageError('missing <agentId>');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const wholeRun = values.all ?? false;
    const json = values.json ?? false;

    const history = await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }));
    try {
      const lookup = await lookUpAgent(history, idOrName, 'stop');
      if ('missing' in lookup) {
        io.stderr.write(lookup.missing);
        return 2;
      }
      const { node } = lookup.found;
      // The id of the agent meant (the argument may have been a teammate's name).
      const { agentId } = node;
      // At work in the agent host: the host stops it, at once.
      const host = await attachToHost(io);
      if (host) {
        try {
          const live = host.store.agent(agentId);
          const inHost = live && (wholeRun ? Object.values(host.store.get(live.runId)?.agents ?? {}).some((a) => isActiveStatus(a.status)) : isActiveStatus(live.status));
          if (inHost) {
            const outcome = await host.stop({ agentId, reason: 'Stopped by the user (subagents stop).', via: 'cli', ...(wholeRun ? { wholeRun } : {}) });
            if (outcome === 'stopped') {
              const target = wholeRun ? `run ${node.runId}` : `${terminalLine(node.agentName)} (${agentId})`;
              io.stdout.write(json ? `${JSON.stringify({ stop: 'done', agentId, runId: node.runId, wholeRun, owner: 'the agent host' })}\n` : `Stopped ${target} in the agent host.\n`);
              return 0;
            }
          }
        } finally {
          host.close();
        }
      }
      const run = history.summaryOf(node.runId);
      const owner = wholeRun ? (lookup.found.runBusyIn ?? ownerElsewhere(lookup.found)) : lookup.found.runningIn !== 'this process' ? lookup.found.runningIn : null;
      const name = `${terminalLine(node.agentName)} (${agentId})`;
      if (!owner) {
        const what = wholeRun ? `run ${node.runId} is not at work${run ? ` (it ended as ${run.status})` : ''}` : `${name} is not at work: it ended as ${node.status}`;
        io.stderr.write(`subagents stop: ${what}.\n`);
        return 1;
      }
      const entry: MailEntry = { id: newMailId(), agentId, runId: node.runId, kind: 'stop', text: 'Stopped by the user (subagents stop).', from: null, via: 'cli', sentAt: mailTime(), ...(wholeRun ? { wholeRun } : {}) };
      await history.mailbox.post(entry);
      const taken = await takenWithin(history.mailbox, entry, TAKE_WAIT_MS);
      const target = wholeRun ? `run ${node.runId}` : name;
      const line = taken ? `Stopped ${target} in ${owner}.` : `Stop queued for ${target}: ${owner} has not taken it yet; it will the next time it looks (within seconds while it runs).`;
      io.stdout.write(json ? `${JSON.stringify({ stop: taken ? 'taken' : 'queued', agentId, runId: node.runId, wholeRun, owner })}\n` : `${line}\n`);
      return 0;
    } finally {
      await history.close();
    }
  },
};

/** Whether the owning process took the stop (it removes the entry as it acts on it) within `ms`. */
async function takenWithin(mailbox: Mailbox, entry: MailEntry, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await mailbox.holds(entry))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
