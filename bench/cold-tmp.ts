(async () => {
  const T = '/tmp/subagents-bench-discovery-3ElSZ7';
  const { discoverAgents } = await import('../src/core/agents/discovery');
  const { agentsJson } = await import('../src/cli/commands/agents');
  const opts = { cwd: T + '/repo/packages/app', home: T + '/home', pluginDirs: [0, 1, 2].map((i) => T + '/plugins/plugin-' + i) };
  for (let i = 0; i < 4; i++) {
    const a = performance.now();
    const r = await discoverAgents(opts);
    const b = performance.now();
    const j = JSON.stringify(agentsJson(r));
    const c = performance.now();
    console.log(`run ${i}: discover ${(b - a).toFixed(0)} ms, json ${(c - b).toFixed(0)} ms (${j.length})`);
  }
})();
