/**
 * The agent-host side of bench/host.ts, in a process of its own: the real
 * HostServer and runtime (the modules dist/host.js runs), listening on a
 * Unix socket, with a scripted run tree whose events enter the runtime's
 * run store at a set rate, exactly where an engine's events enter it
 * (runtime.store.apply). Each event's `ts` is when it was emitted, on the
 * clock every process of the machine shares (performance.timeOrigin + now),
 * so the window side can tell how long it took to reach the Runs view.
 *
 * argv: <socket> <dataDir>. Parent → child: {kind:'start', eventsPerSecond, seconds}.
 * Child → parent: {kind:'listening', token}, then {kind:'done', cpuMs, events}.
 */
import net from 'node:net';
import path from 'node:path';
import { defaultSettings } from '../../src/core/config';
import { HostServer } from '../../src/core/host/server';
import { openRuntime } from '../../src/core/runtime/runtime';
import { emptyUsage, type RunEvent } from '../../src/protocol/runEvents';

const AGENTS = 20;
const RUN = 'bench-host-run';
const WORDS = ['reading', 'the', 'config', 'loader', 'then', 'checking', 'tests', 'for', 'edge', 'cases'];

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const [socket, dataDir] = process.argv.slice(2) as [string, string];
  const token = 'bench-token';
  const server = new HostServer({
    token,
    info: { version: 'bench', build: 'dev', pid: process.pid, startedAt: Date.now() },
    socket,
    settings: { idleExitSeconds: 3600, unattendedApprovalSeconds: 3600 },
    log: () => undefined,
    exit: () => undefined,
  });
  const runtime = await openRuntime({ dataDir, settings: defaultSettings, coalesceMs: 100, mcpStatusFile: path.join(dataDir, 'mcp.json'), recoverWorktrees: false, log: () => undefined });
  server.attach(runtime);
  const listener = net.createServer((s) => server.accept(s));
  await new Promise<void>((resolve) => listener.listen(socket, resolve));
  process.send!({ kind: 'listening', token });

  process.on('message', (m: { kind: string; eventsPerSecond?: number; seconds?: number }) => {
    if (m.kind === 'exit') void runtime.close({ graceMs: 0 }).finally(() => process.exit(0));
    if (m.kind !== 'start') return;
    const eventsPerSecond = m.eventsPerSecond!;
    const total = eventsPerSecond * m.seconds!;
    const running = new Map<string, string[]>();
    let toolSeq = 0;
    const base = (agentId: string) => ({ ts: now(), runId: RUN, agentId });
    for (let i = 0; i < AGENTS; i++) {
      const agentId = `h${i}`;
      running.set(agentId, []);
      runtime.store.apply({ type: 'agent_started', ...base(agentId), parentId: i ? 'h0' : null, parentToolUseId: null, agentName: `worker-${i}`, description: `part ${i}`, prompt: 'go', model: 'claude-haiku-5-5', depth: i ? 1 : 0, cwd: '/repo', background: false, filePath: null, resumed: false });
    }
    const next = (): RunEvent => {
      const agentId = `h${Math.floor(random() * AGENTS)}`;
      const open = running.get(agentId)!;
      const r = random();
      if (r < 0.6) return { type: 'text', ...base(agentId), text: `${pick(WORDS)} ` };
      if (r < 0.8 || open.length === 0) {
        const toolUseId = `t${toolSeq++}`;
        open.push(toolUseId);
        return { type: 'tool_started', ...base(agentId), toolUseId, name: pick(['Read', 'Grep', 'Glob']), inputSummary: `src/m${toolSeq}.ts` };
      }
      if (r < 0.95) return { type: 'tool_finished', ...base(agentId), toolUseId: open.shift()!, name: 'Read', ok: true, resultSummary: '120 lines', durationMs: 40 };
      return { type: 'usage', ...base(agentId), usage: { ...emptyUsage(), inputTokens: toolSeq * 10, outputTokens: toolSeq }, turns: 1 };
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    let emitted = 0;
    // Engine events come a few at a time as model streams deliver them: emitted every millisecond or two, at the set rate overall.
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * eventsPerSecond));
      while (emitted < due) {
        runtime.store.apply(next());
        emitted++;
      }
      if (emitted < total) return;
      clearInterval(timer);
      const used = process.cpuUsage(cpu);
      process.send!({ kind: 'done', events: emitted, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started });
    }, 1);
  });
}

void main();
