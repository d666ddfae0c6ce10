import { parseArgs } from 'node:util';
import type { Mailbox } from '../../core/runs/mailbox';
import { summarize, type RunSummary } from '../../core/runs/runIndex';
import { agentOf, type RunSnapshot } from '../../protocol/runSnapshot';
import { statusDisplay } from '../../protocol/statusDisplay';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { formatDuration, formatUsage, renderTree, styleFor } from '../render/tree';
import { terminalLine } from '../render/terminalText';
import { openHistory } from '../history';
import { attachToHost } from '../hostConnection';
import { cliSettings } from '../settingsFiles';

const USAGE = `Usage: subagents runs [<runId>] [--json] [--limit N]

Lists the run history, newest first: run id, status, agent, when, how long,
tokens and cost. Runs at work in the agent host (VS Code's too) are shown as
they are this instant. With a run id (or the id of any agent in it), prints that
run's tree. The history keeps what the settings history.retentionDays and
history.maxRuns of your user settings file allow: it is shared by every
project, so a project's own settings file does not change it (see
"subagents --help" for the files).

Options:
  --json            one JSON object: { runs } (with a run id: the run's snapshot)
  --limit N         list at most N runs (default 50)`;

function summary(run: RunSummary) {
  return {
    runId: run.runId,
    status: run.status,
    agent: run.agentName || null,
    description: run.description || null,
    startedAt: new Date(run.startedAt).toISOString(),
    durationMs: (run.endedAt ?? Date.now()) - run.startedAt,
    agents: Object.entries(run.agents).map(([agentId, a]) => ({ agentId, agentName: a.agentName, status: a.status, parentId: a.parentId })),
    usage: run.usage,
  };
}

/**
 * Adds to each agent the messages still in the mailbox that its tree does
 * not show (left for a process that ended before taking them): they are
 * read when the agent is next continued.
 */
async function withMailbox(run: RunSnapshot, mailbox: Mailbox): Promise<void> {
  for (const node of Object.values(run.agents)) {
    const known = new Set((node.messages ?? []).map((m) => m.messageId));
    for (const entry of await mailbox.pending(node.agentId)) {
      if (entry.kind === 'stop' || known.has(entry.id)) continue;
      (node.messages ??= []).push({ messageId: entry.id, kind: entry.kind, from: entry.from, via: entry.via, text: entry.text, sentAt: entry.sentAt, deliveredAt: null });
    }
  }
}

export const runsCommand: CliCommand = {
  name: 'runs',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, limit: { type: 'string' } },
    });
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit needs a positive whole number, got "${values.limit}"`);
    const history = await openHistory(io, cliSettings(io, io.cwd, { userOnly: true }));
    // The agent host's runs as they are this instant (VS Code's among them); the history's index for the rest.
    const host = await attachToHost(io);
    const live = host?.store.list() ?? [];
    host?.close();
    const [runId] = positionals;
    await history.ready();
    if (runId) {
      const run = live.find((r) => r.runId === runId || agentOf(r, runId)) ?? (await history.read(runId));
      if (!run) {
        io.stderr.write(`subagents runs: no run "${terminalLine(runId)}" in the history.\n`);
        return 1;
      }
      await withMailbox(run, history.mailbox);
      io.stdout.write(values.json ? `${JSON.stringify(run)}\n` : `${renderTree(run, { style: styleFor(io.stdout, io.env) }).join('\n')}\n`);
      return 0;
    }
    const seen = new Set(live.map((r) => r.runId));
    const runs: RunSummary[] = [...live.map((run) => summarize(run, true)), ...history.summaries(limit).filter((r) => !seen.has(r.runId))].sort((a, b) => b.startedAt - a.startedAt).slice(0, limit);
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ runs: runs.map(summary) })}\n`);
      return 0;
    }
    if (runs.length === 0) {
      io.stdout.write('No runs yet.\n');
      return 0;
    }
    for (const run of runs.map(summary)) {
      const when = run.startedAt.replace('T', ' ').slice(0, 16);
      io.stdout.write(
        `${terminalLine(run.runId)}  ${statusDisplay(run.status).label.padEnd(15)} ${terminalLine(String(run.agent)).padEnd(20)} ${when}  ${formatDuration(run.durationMs).padStart(7)}  ${formatUsage(run.usage)}  ${terminalLine(run.description ?? '')}\n`,
      );
    }
    return 0;
  },
};
