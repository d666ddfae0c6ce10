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
