import { parseArgs } from 'node:util';
import { previewText } from '../../core/tools/approvalPreview';
import type { PendingApproval } from '../../core/tools/approvalInbox';
import type { ApprovalDecision } from '../../core/tools/permissions';
import { approvalHeadline } from '../../protocol/approvalText';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { attachToHost } from '../hostConnection';
import { formatDuration } from '../render/tree';
import { terminalLine, terminalText } from '../render/terminalText';

const USAGE = `Usage: subagents approvals [--json]
       subagents approvals allow <approvalId> [--for agent|run] [--json]
       subagents approvals deny <approvalId> [--reason TEXT] [--json]

Lists the approvals agents in the agent host wait for (runs VS Code started,
and terminals' runs the host took), oldest first: what each agent wants to
run or change, whole. "allow" and "deny" answer one by its id; the first
answer from anywhere (a VS Code window, a terminal) settles it.

Options:
  --for agent|run   allow every further call of that kind by the agent, or by
                    any agent of its run (default: this call only)
  --reason TEXT     what the agent is told with a denial
  --json            list: { approvals: [...] }; allow/deny: { settled }

Exit code: 0 listed or settled, 1 no agent host runs or the approval was
answered already (or its agent stopped), 2 for bad arguments.`;

/** A diff shown here stops after this many lines; a command is always shown whole. */
const DIFF_LINES = 60;

function describe(approval: PendingApproval, now: number): string {
  const { request } = approval;
  const headline = approvalHeadline({ ...request, agentName: terminalLine(request.agentName), summary: terminalLine(request.summary) });
  const detail = request.preview ? previewText(request.preview, DIFF_LINES) : request.summary;
  const body = terminalText(detail)
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  const protectedNote = request.protectedReason ? `\n    (protected: ${terminalLine(request.protectedReason)})` : '';
  return `${request.id}  ${headline}${request.kind === 'bash' ? '' : ` (${terminalLine(request.toolName)})`} · agent ${request.agentId} · run ${request.runId} · waiting ${formatDuration(now - approval.requestedAt)}\n${body}${protectedNote}`;
}

export const approvalsCommand: CliCommand = {
  name: 'approvals',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, for: { type: 'string' }, reason: { type: 'string' } },
    });
    const [action = 'list', approvalId, extra] = positionals;
    if (!['list', 'allow', 'deny'].includes(action)) throw new UsageError(`unknown action "${action}": allow or deny (or nothing, to list)`);
    if (action !== 'list' && !approvalId) throw new UsageError(`missing <approvalId> ("subagents approvals" lists them)`);
    if (extra !== undefined || (action === 'list' && approvalId !== undefined)) throw new UsageError(`unexpected argument "${extra ?? approvalId}"`);
    if (values.for !== undefined && (action !== 'allow' || !['agent', 'run'].includes(values.for))) throw new UsageError('--for takes agent or run, with allow');
    if (values.reason !== undefined && action !== 'deny') throw new UsageError('--reason goes with deny');
    const json = values.json ?? false;

    const host = await attachToHost(io);
    if (!host) {
      io.stderr.write('subagents approvals: no agent host runs, so no agent of it waits. A "subagents run" in its own process asks in its terminal.\n');
      return 1;
    }
    try {
      if (action === 'list') {
        const pending = host.approvals.pending;
        if (json) io.stdout.write(`${JSON.stringify({ approvals: pending })}\n`);
        else if (pending.length === 0) io.stdout.write('No agent waits for an approval.\n');
        else io.stdout.write(`${pending.map((a) => describe(a, Date.now())).join('\n\n')}\n`);
        return 0;
      }
      const decision: ApprovalDecision =
        action === 'allow'
          ? { allow: true, scope: (values.for as 'agent' | 'run' | undefined) ?? 'once', by: 'terminal' }
          : { allow: false, reason: values.reason?.trim() || 'denied in a terminal (subagents approvals)', by: 'terminal' };
      const known = host.approvals.get(approvalId!);
      const settled = await host.approvals.answer(approvalId!, decision);
      if (json) io.stdout.write(`${JSON.stringify({ settled, approvalId })}\n`);
      else if (settled) {
        const who = known ? `${terminalLine(known.request.agentName)} (${known.request.agentId})` : 'the agent';
        io.stdout.write(`${action === 'allow' ? 'Allowed' : 'Denied'} ${approvalId} for ${who}${decision.scope && decision.scope !== 'once' ? `, and every such call of its ${decision.scope} from now on` : ''}.\n`);
      } else io.stderr.write(`subagents approvals: ${terminalLine(approvalId!)} is not waiting: it was answered already, or its agent stopped ("subagents approvals" lists those that wait).\n`);
      return settled ? 0 : 1;
    } finally {
      host.close();
    }
  },
};
