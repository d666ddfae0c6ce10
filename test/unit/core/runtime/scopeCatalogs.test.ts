import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentCatalog, AgentCatalogOptions } from '../../../../src/core/agents/catalog/catalog';
import { ScopeCatalogs } from '../../../../src/core/runtime/scopeCatalogs';
import { agent } from '../../../support/agents';

// Scopes that discover the same folders alike (a terminal's runs through
// the agent host, each a scope of its own) share one watched catalog, which
// stops watching when the last of them closes.

function fakeDiscovery() {
  const made: Array<{ options: AgentCatalogOptions; disposed: boolean }> = [];
  const create = async (options: AgentCatalogOptions) => {
    const entry = { options, disposed: false };
    made.push(entry);
    const agents = [agent(`helper${made.length}`)];
    return { agents, warnings: [], find: (name: string) => agents.find((a) => a.name === name), dispose: () => (entry.disposed = true) } as unknown as AgentCatalog;
  };
  return { made, create };
}

const options = (cwd: string): AgentCatalogOptions => ({ cwd, home: '/home/u', pluginDirs: [], watch: true });

test('scopes that discover alike share one catalog; the last one to close stops it', async () => {
  const { made, create } = fakeDiscovery();
  const catalogs = new ScopeCatalogs();
  const [a, b] = await Promise.all([catalogs.hold(options('/p'), create), catalogs.hold(options('/p'), create)]);
  assert.equal(made.length, 1, 'discovered once');
  assert.equal(a.find('helper1')?.name, 'helper1');
  assert.equal(b.agents, a.agents);
  const other = await catalogs.hold(options('/q'), create);
  assert.equal(made.length, 2, 'another folder is discovered for itself');
  a.dispose();
  a.dispose();
  assert.equal(made[0]!.disposed, false, 'another scope still holds it');
  b.dispose();
  assert.equal(made[0]!.disposed, true);
  const again = await catalogs.hold(options('/p'), create);
  assert.equal(made.length, 3, 'a scope after the last one closed discovers again');
  again.dispose();
  other.dispose();
  assert.equal(catalogs.size, 0);
});

test('a discovery that fails is not kept for the next scope', async () => {
  const catalogs = new ScopeCatalogs();
  let calls = 0;
  const failing = async (): Promise<AgentCatalog> => {
    calls++;
    throw new Error('disk gone');
  };
  await assert.rejects(catalogs.hold(options('/p'), failing), /disk gone/);
  await assert.rejects(catalogs.hold(options('/p'), failing), /disk gone/);
  assert.equal(calls, 2);
  assert.equal(catalogs.size, 0);
});
