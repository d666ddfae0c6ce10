import { startScriptedServer, type Reply, type Script, type ScriptedRequest } from '../../test/support/scriptedServer';

/** Named scripts for benchmarks that run the server in its own process. */
const SCRIPTS: Record<string, (p: Record<string, number>) => Script> = {
  fanOut: ({ children, childTurns, latencyMs }) => (req: ScriptedRequest): Reply => {
    const delayMs = latencyMs;
    if (req.system.includes('[agent:parent]')) {
      if (req.turn === 0) {
        return { delayMs, toolUses: Array.from({ length: children! }, (_, i) => ({ name: 'Task', input: { subagent_type: 'child', description: `part ${i}`, prompt: `do part ${i}` } })) };
      }
      return { delayMs, text: 'all parts done' };
    }
    return req.turn < childTurns! - 1 ? { delayMs, toolUses: [{ name: 'LS', input: {} }] } : { delayMs, text: 'part done' };
  },
  /** A lead that starts `children` isolated editors in one turn; each writes one file, then says done. */
  isolatedEditors: ({ children }) => (req: ScriptedRequest): Reply => {
    if (req.system.includes('[agent:lead]')) {
      if (req.turn === 0) {
        return { toolUses: Array.from({ length: children! }, (_, i) => ({ name: 'Task', input: { subagent_type: 'editor', description: `edit ${i}`, prompt: `job ${i}`, isolation: 'worktree' } })) };
      }
      return { text: 'all edits done' };
    }
    const job = /job (\d+)/.exec(JSON.stringify(req.messages[0]?.content))?.[1] ?? 'x';
    if (req.turn === 0) return { toolUses: [{ name: 'Write', input: { file_path: `out/editor-${job}.txt`, content: `written by editor ${job}\n` } }] };
    return { text: 'edited' };
  },
  background: ({ children, childTurns, latencyMs }) => (req: ScriptedRequest): Reply => {
    const delayMs = latencyMs;
    if (req.system.includes('[agent:parent]')) {
      if (req.turn === 0) {
        return { delayMs, toolUses: Array.from({ length: children! }, (_, i) => ({ name: 'Task', input: { subagent_type: 'child', description: `job ${i}`, prompt: `job ${i}`, run_in_background: true } })) };
      }
      return { delayMs, text: 'noted' };
    }
    return req.turn < childTurns! - 1 ? { delayMs, text: `step ${req.turn} `.repeat(20), toolUses: [{ name: 'LS', input: {} }] } : { delayMs, text: 'job done' };
  },
};

void (async () => {
  const [name, params] = process.argv.slice(2);
  const make = SCRIPTS[name!];
  if (!make) throw new Error(`no script "${name}"`);
  const server = await startScriptedServer(make(JSON.parse(params ?? '{}')), { record: false });
  process.send!({ url: server.url });
  process.on('message', async (message) => {
    if (message === 'stats') process.send!({ maxInFlight: server.maxInFlight });
    if (message === 'close') {
      await server.close();
      process.exit(0);
    }
  });
})();
