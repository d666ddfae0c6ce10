// What the scripted model server answers for the sample workspace's agents
// in the e2e tests, routed by a phrase of each agent's system prompt.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Script } from '../../support/scriptedServer';

const LEAD = 'You lead a small team of specialist agents';
const TEST_RUNNER = 'You run tests and report on them';
const DOCS = 'You keep the documentation of this project truthful';
const EXPLAINER = 'Explain the code you are asked about';
const REVIEWER = 'Review the change you are given';

/**
 * - tech-lead spawns test-runner, which asks to run the tests (an approval),
 *   runs them, then waits for `finish` before its last turn, so a test can
 *   look at the tree while both agents run;
 * - docs-writer writes RELEASE-NOTES.md (an approval; in a worktree when isolated);
 * - explainer names a model the server does not know: it fails, as it would
 *   against the real API;
 * - code-reviewer answers once `review` resolves, so a test can leave the
 *   Runs view before it ends.
 */
export function sampleScript(finish: Promise<void>, review: Promise<void> = Promise.resolve()): Script {
  return async (req) => {
    if (req.system.includes(LEAD)) {
      if (req.toolResults.size > 0) return { text: 'Summary: test-runner ran the tests; they pass.', chunkDelayMs: 20 };
      return {
        text: 'Asking test-runner to run the tests.',
        toolUses: [{ name: 'Task', input: { description: 'Run the tests', prompt: 'Run the project tests and report.', subagent_type: 'test-runner' } }],
        delayMs: 300,
      };
    }
    if (req.system.includes(TEST_RUNNER)) {
      if (req.toolResults.size === 0) return { toolUses: [{ name: 'Bash', input: { command: 'node --test test/' } }], delayMs: 300 };
      await finish;
      return { text: 'All tests pass.', chunkDelayMs: 20 };
    }
    if (req.system.includes(DOCS)) {
      if (req.toolResults.size > 0) return { text: 'Wrote RELEASE-NOTES.md with a short summary.' };
      return { toolUses: [{ name: 'Write', input: { file_path: 'RELEASE-NOTES.md', content: '# Notes\n\nTally counts words.\n' } }], delayMs: 200 };
    }
    if (req.system.includes(REVIEWER)) {
      await review;
      return { text: 'Looks good to me.' };
    }
    if (req.system.includes(EXPLAINER)) {
      // Like some proxies, the error echoes the credentials it got: the product must never show or store them.
      const key = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /, '');
      return { error: { status: 400, type: 'invalid_request_error', message: `model: ${req.model} is not available on this server (key ${key})` } };
    }
    return { text: 'ok' };
  };
}

/**
 * A plugin root for `subagents.pluginDirs` (its folder, `plugin`, names it):
 * one agent of its own, and a code-reviewer that lives beside the project's
 * as `plugin:code-reviewer` (plugin agents are qualified, never shadowed).
 */
export function samplePlugin(dir: string): string {
  const agents = path.join(dir, 'agents');
  mkdirSync(agents, { recursive: true });
  writeFileSync(path.join(agents, 'release-notes.md'), '---\nname: release-notes\ndescription: Drafts release notes from the commits since the last tag.\ntools: Read, Bash\n---\nDraft release notes.\n');
  writeFileSync(path.join(agents, 'code-reviewer.md'), '---\nname: code-reviewer\ndescription: The plugin\'s reviewer, beside the project\'s.\n---\nReview.\n');
  return dir;
}
