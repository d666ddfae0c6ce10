// Builds run events by hand for tests of the surfaces (chat, views), so they
// can fold realistic trees through the real RunStore without an engine.
import { emptyUsage, type RunEvent, type Usage } from '../../src/protocol/runEvents';

export class EventScript {
  ts = 1_000_000;
  readonly events: RunEvent[] = [];
  constructor(readonly runId = 'run1') {}

  #push(event: RunEvent): RunEvent {
    this.events.push(event);
    return event;
  }

  tick(ms = 10): this {
    this.ts += ms;
    return this;
  }

  started(agentId: string, agentName: string, opts: { parentId?: string; parentToolUseId?: string; depth?: number; model?: string; description?: string; background?: boolean; cwd?: string } = {}): RunEvent {
    return this.#push({
      type: 'agent_started',
      ts: this.ts,
      runId: this.runId,
      agentId,
      parentId: opts.parentId ?? null,
      parentToolUseId: opts.parentToolUseId ?? null,
      agentName,
      description: opts.description ?? `${agentName} task`,
      prompt: opts.description ?? `${agentName} task`,
      model: opts.model ?? 'claude-sonnet-5-5',
      depth: opts.depth ?? 0,
      cwd: opts.cwd ?? '/work/project',
      background: opts.background ?? false,
      filePath: `/agents/${agentName}.md`,
      resumed: false,
    });
  }

  tool(agentId: string, toolUseId: string, name: string, input: string, result: { ok?: boolean; summary?: string; durationMs?: number } | null = {}): RunEvent[] {
    const out = [this.#push({ type: 'tool_started', ts: this.ts, runId: this.runId, agentId, toolUseId, name, inputSummary: input })];
    if (result) {
      out.push(this.#push({ type: 'tool_finished', ts: this.ts, runId: this.runId, agentId, toolUseId, name, ok: result.ok ?? true, resultSummary: result.summary ?? 'done', durationMs: result.durationMs ?? 5 }));
    }
    return out;
  }

  approval(agentId: string, approvalId: string, toolUseId: string, summary: string, kind: 'bash' | 'edit' = 'bash', protectedReason: string | null = null): RunEvent {
    return this.#push({ type: 'approval_requested', ts: this.ts, runId: this.runId, agentId, approvalId, toolUseId, toolName: kind === 'bash' ? 'Bash' : 'Write', kind, summary, protectedReason });
  }

  settled(agentId: string, approvalId: string, allowed = true): RunEvent {
    return this.#push({ type: 'approval_settled', ts: this.ts, runId: this.runId, agentId, approvalId, allowed, scope: 'once', by: 'test', reason: null });
  }

  usage(agentId: string, usage: Partial<Usage>, turns: number): RunEvent {
    return this.#push({ type: 'usage', ts: this.ts, runId: this.runId, agentId, usage: { ...emptyUsage(), ...usage }, turns });
  }

  finished(agentId: string, opts: { status?: 'completed' | 'failed' | 'cancelled'; output?: string; error?: string; usage?: Partial<Usage>; turns?: number; worktree?: { branch: string; filesChanged: number } } = {}): RunEvent {
    return this.#push({
      type: 'agent_finished',
      ts: this.ts,
      runId: this.runId,
      agentId,
      status: opts.status ?? 'completed',
      output: opts.output ?? 'done',
      error: opts.error ?? null,
      usage: { ...emptyUsage(), ...opts.usage },
      turns: opts.turns ?? 1,
      durationMs: 10,
      worktree: opts.worktree ? { path: '/trees/x', baseCommit: 'abc', insertions: 3, deletions: 0, ...opts.worktree } : null,
    });
  }
}
