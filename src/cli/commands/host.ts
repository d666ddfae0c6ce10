import { parseArgs } from 'node:util';
import { describeSeconds } from '../../core/host/lifetime';
import type { HostStatus } from '../../protocol/host';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { attachToHost, startAndAttach } from '../hostConnection';
import { terminalLine } from '../render/terminalText';
import { cliSettings } from '../settingsFiles';

const USAGE = `Usage: subagents host start|stop|status [--json] [--force] [--when-idle]

The agent host is one process of yours that runs agents for every VS Code
window and terminal: runs started in VS Code outlive a window reload, and
"subagents runs", "send", "stop", "resume" and "approvals" reach them. VS Code
starts it when it needs it; "subagents run" uses it when it runs (see "run
--help" to run in the command's own process instead). It listens on a socket
only you can open, and exits after host.idleExitSeconds with no client, no
agent at work and no approval waiting.

  start       start it (when none runs) and wait until it listens
  status      whether it runs, since when, who is connected, what is at work
  stop        stop it; refused while agents are at work, unless
                --force       stops them too (they end as cancelled), or
                --when-idle   it exits once no agent is at work
Options:
  --json      one JSON object (status: the host's status, or { running: false })

Exit code: 0 done (status: running), 1 not running (status, stop) or refused
(stop with agents at work), 2 for bad arguments.`;

const CLIENT_WORDS: Record<HostStatus['clients'][number]['kind'], string> = { vscode: 'VS Code window', cli: 'terminal', other: 'client' };

function describe(status: HostStatus): string {
  const since = new Date(status.host.startedAt).toISOString().replace('T', ' ').slice(0, 16);
  const clients = status.clients.map((c) => `${CLIENT_WORDS[c.kind]} (pid ${c.pid})`);
  const exit = status.idleExitAt ? `Nothing keeps it: it exits at ${new Date(status.idleExitAt).toISOString().slice(11, 19)} UTC unless a client connects or a run starts.` : `It exits after ${describeSeconds(status.settings.idleExitSeconds)} with no client, no agent at work and no approval waiting.`;
  return [
    `The agent host runs: pid ${status.host.pid}, version ${terminalLine(status.host.version)}, since ${since} UTC, at ${terminalLine(status.socket)}.`,
    `Connected: ${clients.length ? clients.join(', ') : 'none'}.`,
    `Agents at work: ${status.working}; approvals waiting: ${status.pendingApprovals}${status.pendingApprovals ? ' ("subagents approvals" lists them)' : ''}.`,
    exit,
  ].join('\n');
}

export const hostCommand: CliCommand = {
  name: 'host',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, force: { type: 'boolean', default: false }, 'when-idle': { type: 'boolean', default: false } },
    });
    const [action, extra] = positionals;
    if (!action) throw new UsageError('missing start, stop or status');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (!['start', 'stop', 'status'].includes(action)) throw new UsageError(`unknown action "${action}": start, stop or status`);
    if ((values.force || values['when-idle']) && action !== 'stop') throw new UsageError('--force and --when-idle go with stop');
    const json = values.json ?? false;
    const settings = cliSettings(io, io.cwd, { userOnly: true });

    if (action === 'start') {
      const client = await startAndAttach(io, settings);
      try {
        const status = await client.status();
        io.stdout.write(json ? `${JSON.stringify(status)}\n` : `${describe(status)}\n`);
        return 0;
      } finally {
        client.close();
      }
    }

    const client = await attachToHost(io);
    if (!client) {
      io.stdout.write(json ? `${JSON.stringify({ running: false })}\n` : 'No agent host runs. VS Code starts one when it needs it; "subagents host start" starts one now.\n');
      return 1;
    }
    try {
      const status = await client.status();
      if (action === 'status') {
        io.stdout.write(json ? `${JSON.stringify(status)}\n` : `${describe(status)}\n`);
        return 0;
      }
      if (status.working > 0 && !values.force && !values['when-idle']) {
        io.stderr.write(`subagents host stop: ${status.working} agent(s) are at work in the host. Stop them too with --force, or let the host exit once none is with --when-idle.\n`);
        return 1;
      }
      const { stopping } = await client.shutdown(values['when-idle'] === true);
      const line = stopping ? `Stopped the agent host (pid ${status.host.pid}).` : `The agent host (pid ${status.host.pid}) exits once no agent is at work (${status.working} now).`;
      io.stdout.write(json ? `${JSON.stringify({ stopping, pid: status.host.pid })}\n` : `${line}\n`);
      return 0;
    } finally {
      client.close();
    }
  },
};
