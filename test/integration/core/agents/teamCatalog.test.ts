import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TeamCatalog } from '../../../../src/core/agents/teams/teamCatalog';

/**
 * Teams are found like agents: the project's `.subagents/teams` (the
 * nearest up from the folder) over the user's config folder, by name; a
 * file saved, added or removed mid-session is seen without a restart.
 */

const team = (name: string, lead: string) => `---\nname: ${name}\nlead: ${lead}\n---\nBrief of ${lead}.\n`;

function changed(catalog: TeamCatalog): Promise<void> {
  return new Promise((resolve) => {
    const off = catalog.onDidChange(() => {
      off();
      resolve();
    });
  });
}

test('project over user by name; live reload of edits, new files, deletions and a folder made later; found from a subfolder', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-teams-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const config = path.join(root, 'config');
  const project = path.join(root, 'project');
  const sub = path.join(project, 'src', 'deep');
  await mkdir(path.join(config, 'subagents', 'teams'), { recursive: true });
  await mkdir(sub, { recursive: true });
  await writeFile(path.join(config, 'subagents', 'teams', 'review.md'), team('review', 'user-lead'));
  await writeFile(path.join(config, 'subagents', 'teams', 'docs.md'), team('docs', 'writer'));

  const catalog = await TeamCatalog.create({ cwd: project, home, env: { XDG_CONFIG_HOME: config }, watch: true, debounceMs: 10 });
  t.after(() => catalog.dispose());
  assert.deepEqual(catalog.teams.map((x) => [x.name, x.source, x.lead]), [['docs', 'user', 'writer'], ['review', 'user', 'user-lead']]);

  // The project's folder appears later: it is watched for, and its team wins.
  let next = changed(catalog);
  await mkdir(path.join(project, '.subagents', 'teams'), { recursive: true });
  await writeFile(path.join(project, '.subagents', 'teams', 'review.md'), team('review', 'project-lead'));
  await next;
  if (catalog.find('review')?.source !== 'project') await changed(catalog);
  assert.deepEqual([catalog.find('review')?.source, catalog.find('review')?.lead], ['project', 'project-lead']);
  assert.deepEqual(catalog.shadowed.map((s) => [s.team.source, s.by.source]), [['user', 'project']]);

  next = changed(catalog);
  await writeFile(path.join(project, '.subagents', 'teams', 'review.md'), team('review', 'edited-lead'));
  await next;
  assert.equal(catalog.find('review')?.lead, 'edited-lead');

  // A folder below the project finds the project's teams.
  const below = await TeamCatalog.create({ cwd: sub, home, env: { XDG_CONFIG_HOME: config } });
  assert.deepEqual([below.find('review')?.source, below.dirs.map((d) => d.source)], ['project', ['project', 'user']]);

  next = changed(catalog);
  await unlink(path.join(project, '.subagents', 'teams', 'review.md'));
  await next;
  assert.deepEqual([catalog.find('review')?.source, catalog.shadowed.length], ['user', 0]);

  // An untrusted project's teams are not read.
  const untrusted = await TeamCatalog.create({ cwd: sub, home, env: { XDG_CONFIG_HOME: config }, includeProject: false });
  await writeFile(path.join(project, '.subagents', 'teams', 'only-here.md'), team('only-here', 'x'));
  await untrusted.refresh();
  assert.equal(untrusted.find('only-here'), undefined);
});
