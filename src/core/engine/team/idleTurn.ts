import type { AgentRun, EmitEvent } from '../tree/agentRun';
import { MAX_STOP_HOOK_ROUNDS, type TeamHookVerdict } from '../tree/lifecycleHooks';
import { newMailId } from '../messaging/mail';

/**
 * What happens when a teammate's turn ends: its TeammateIdle hooks may keep
 * it working (exit 2: their stderr is its next instruction) or end it
 * (`"continue": false`); otherwise it goes idle. Idle, it gives its place
 * under the run's concurrency limit back, its lead is told what it said
 * last, and it rests until a message wakes it (the message is its next
 * turn) or it is ended.
 */

/** How the teammate goes on: with an instruction from a hook, with what arrived for it, or not at all. */
export type IdleOutcome = { go: 'instruction'; text: string } | { go: 'message' } | { go: 'end' };

export interface IdleHost {
  /** The TeammateIdle hooks. */
  hooks(output: string): Promise<TeamHookVerdict>;
  emit: EmitEvent;
}

/**
 * `round` counts the hooks' instructions since the teammate last rested:
 * past MAX_STOP_HOOK_ROUNDS in a row it goes idle anyway, so a hook that
 * always says no cannot spend the run's budget on its own.
 */
export async function idleTurn(run: AgentRun, output: string, round: number, host: IdleHost): Promise<IdleOutcome> {
  const mate = run.teammate!;
  if (run.inbox.size > 0) return { go: 'message' };
  if (mate.ending !== null) return { go: 'end' };
  if (round < MAX_STOP_HOOK_ROUNDS) {
    const verdict = await host.hooks(output);
    if (verdict.stop !== undefined) {
      mate.end(`A TeammateIdle hook ended it: ${verdict.stop || 'no reason given'}`, true);
      return { go: 'end' };
    }
    if (verdict.block !== undefined) return { go: 'instruction', text: verdict.block || 'A TeammateIdle hook asked you to keep working before you go idle.' };
  }
  // What came while the hooks ran is the next turn.
  if (run.inbox.size > 0) return { go: 'message' };
  if (mate.ending !== null) return { go: 'end' };
  // Continued by a message after its lead had ended: no lead would wake or end it, so the end of its turn is its end.
  if (!run.parent || run.parent.ended) return { go: 'end' };

  mate.idle = true;
  run.status = 'idle';
  host.emit({ type: 'agent_idle', idle: true, output: output || null });
  tellLead(run, output);
  run.slot.lend();
  const woke = await mate.rest(run.inbox, run.signal);
  mate.idle = false;
  run.signal.throwIfAborted();
  if (woke === 'end') return { go: 'end' };
  // Woken: it takes its turn under the concurrency limit again.
  await run.slot.take();
  run.status = 'running';
  host.emit({ type: 'agent_idle', idle: false });
  return { go: 'message' };
}

function attribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/**
 * The lead hears that the teammate rests, with what it said last. Quiet: a
 * lead waiting for teammates still at work takes all of these in one turn
 * once the last one rests, rather than a turn for each.
 */
function tellLead(run: AgentRun, output: string): void {
  const lead = run.parent;
  if (!lead || lead.ended) return;
  const id = newMailId();
  const name = run.teammate!.name;
  lead.inbox.push({
    entry: {
      id,
      agentId: lead.id,
      runId: run.tree.runId,
      kind: 'result',
      text: `<teammate-idle name="${attribute(name)}" agent-id="${run.id}" id="${id}">\n${output || '(it said nothing)'}\n</teammate-idle>`,
      from: { agentId: run.id, agentName: name },
      via: 'agent',
      sentAt: Date.now(),
    },
    posted: false,
    quiet: true,
  });
}
