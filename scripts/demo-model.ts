// The demo model `npm start` runs when there is no API key: the project's
// scripted Messages API server (test/support/scriptedServer.ts: real HTTP +
// SSE, what the tests use) playing a short, realistic session with the sample
// workspace's agents, so a newcomer sees agents at work before paying for a
// key. It cannot think: it recognises each sample agent by its system prompt
// and plays that agent's part, reading real tool results where it matters
// (the test count comes from the real test run). Any other agent gets an
// honest "this is the demo model" answer.
//
//   node --import tsx scripts/demo-model.ts [--port=N]
// prints `demo model listening on http://127.0.0.1:<port>` and runs until
// stopped. scripts/product.mjs starts it for `npm start` and the e2e test.
import { pathToFileURL } from 'node:url';
import { startScriptedServer, type Reply, type Script, type ScriptedRequest, type ToolUseSpec } from '../test/support/scriptedServer';

/** Phrases of the sample agents' system prompts (test/fixtures/sample-workspace). */
const AGENTS = {
  lead: 'You lead a small team of specialist agents',
  testRunner: 'You run tests and report on them',
  docs: 'You keep the documentation of this project truthful',
  reviewer: 'Review the change you are given as a careful colleague would',
  explainer: 'Explain the code you are asked about',
  helper: 'You answer questions about this repository',
} as const;

export const DEMO_NOTICE =
  'This answer comes from the Subagents demo model, which plays a scripted session and cannot read your request. ' +
  'Set an Anthropic API key ("Subagents: Set API Key") to run agents on Claude.';

/** Pauses and a steady stream, so the session can be watched as it unfolds. */
const think = (ms: number) => ({ delayMs: ms, chunkDelayMs: 12 });

const toolUse = (name: string, input: unknown, id?: string): ToolUseSpec => ({ name, input, ...(id ? { id } : {}) });

/** Said before anything happens: the session is a script, whatever was asked. */
export const DEMO_OPENING = '_Demo model: this is a scripted session with the sample agents; it plays the same way whatever you ask._';

/** The release notes docs-writer drafts. */
const NOTES = [
  '# Tally 0.0.1',
  '',
  'A tiny command-line word counter.',
  '',
  '- `node src/cli.js FILE` prints the words, lines and five most common words of a file.',
  '- Words are case-insensitive runs of letters and digits; a trailing newline does not start a line.',
  '- `node --test test/` runs the tests.',
  '',
].join('\n');

function offers(req: ScriptedRequest, tool: string): boolean {
  return req.toolNames.includes(tool);
}

/** The first tool result of the last user message. */
function firstResult(req: ScriptedRequest): { content: string; isError: boolean } | undefined {
  return [...req.toolResults.values()][0];
}

/** "ℹ pass 3" / "ℹ fail 0" from node --test output. */
function testCounts(output: string): { pass: number; fail: number } | null {
  const pass = /(?:ℹ|#) pass (\d+)/.exec(output);
  const fail = /(?:ℹ|#) fail (\d+)/.exec(output);
  return pass && fail ? { pass: Number(pass[1]), fail: Number(fail[1]) } : null;
}

function techLead(req: ScriptedRequest): Reply {
  if (req.turn === 0) {
    return {
      text: `${DEMO_OPENING}\n\nTwo independent checks: test-runner runs the suite, and docs-writer drafts release notes on a branch of its own so nothing changes in your tree until you apply it.`,
      toolUses: [
        toolUse('Task', {
          description: 'Run the test suite',
          subagent_type: 'test-runner',
          prompt: 'Run the project tests (node --test test/) and report how many pass, explaining any failure.',
        }),
        toolUse('Task', {
          description: 'Draft release notes',
          subagent_type: 'docs-writer',
          isolation: 'worktree',
          prompt: 'Read README.md and src/count.js, then write RELEASE-NOTES.md: short release notes for Tally 0.0.1 (what it does, how to run it).',
        }),
      ],
      ...think(700),
    };
  }
  const reports = [...req.toolResults.values()].map((r) => r.content).join('\n');
  // What docs-writer left decides what to say: a branch with changes to review, or nothing (the notes were there already).
  const worktree = /"branch":"([^"]+)"/.exec(reports)?.[1];
  const unchanged = /already has these release notes/.test(reports);
  const notes = worktree
    ? `RELEASE-NOTES.md drafted on branch \`${worktree}\`. Review it and apply it to your tree, or discard it.`
    : unchanged
      ? 'RELEASE-NOTES.md already had these release notes, so nothing changed and there is nothing to review.'
      : 'no change was left to review; see its report above.';
  return {
    text: [
      '## Summary',
      '',
      `- **Tests** (test-runner): ${/All (\d+) tests pass/.exec(reports)?.[0] ?? 'see its report above'}.`,
      `- **Release notes** (docs-writer): ${notes}`,
      '',
      '_Played by the Subagents demo model. Set an API key to run these agents on Claude._',
    ].join('\n'),
    ...think(500),
  };
}

function testRunner(req: ScriptedRequest): Reply {
  if (req.turn === 0) return { text: 'Running the suite.', toolUses: [toolUse('Bash', { command: 'node --test test/' })], ...think(600) };
  const result = firstResult(req);
  if (!result || result.isError) return { text: `The tests could not run: ${result?.content.split('\n')[0] ?? 'no output'}`, ...think(300) };
  const counts = testCounts(result.content);
  if (!counts) return { text: `The test run printed no summary:\n\n${result.content.slice(0, 400)}`, ...think(300) };
  return {
    text: counts.fail === 0 ? `All ${counts.pass} tests pass.` : `${counts.fail} of ${counts.pass + counts.fail} tests fail; the output above names them.`,
    ...think(400),
  };
}

/**
 * docs-writer reads the README and the notes it would write; its worktree
 * starts from the user's tree, so a second demo may find them there already,
 * and then it says so instead of claiming a write that changes nothing.
 */
function docsWriter(req: ScriptedRequest): Reply {
  if (req.turn === 0) {
    return { toolUses: [toolUse('Read', { file_path: 'README.md' }), toolUse('Read', { file_path: 'RELEASE-NOTES.md' }, 'toolu_demo_read_notes')], ...think(500) };
  }
  if (req.turn === 1) {
    const existing = req.toolResults.get('toolu_demo_read_notes');
    const lines = NOTES.split('\n').filter((line) => line.trim());
    if (existing && !existing.isError && lines.every((line) => existing.content.includes(line))) {
      return { text: 'RELEASE-NOTES.md already has these release notes for 0.0.1: nothing to change.', ...think(300) };
    }
    return { text: 'Writing RELEASE-NOTES.md.', toolUses: [toolUse('Write', { file_path: 'RELEASE-NOTES.md', content: NOTES })], ...think(600) };
  }
  const result = firstResult(req);
  return { text: result?.isError ? `RELEASE-NOTES.md was not written: ${result.content}` : 'Wrote RELEASE-NOTES.md with release notes for 0.0.1.', ...think(300) };
}

function readOnlyAnswer(req: ScriptedRequest, file: string, answer: string): Reply {
  const reads = offers(req, 'Read');
  if (req.turn === 0 && reads) return { toolUses: [toolUse('Read', { file_path: file })], ...think(500) };
  return { text: `${answer}\n\n_${DEMO_NOTICE}_`, ...think(400) };
}

/** Any agent the demo has no part for; one that can delegate hands the task to tech-lead when it exists. */
function anyAgent(req: ScriptedRequest): Reply {
  const task = req.tools.find((t) => t.name === 'Task');
  if (task && String(task.description ?? '').includes('- tech-lead:')) {
    if (req.turn === 0) {
      return {
        text: 'This needs a few specialists; handing it to tech-lead.',
        toolUses: [toolUse('Task', { description: 'Check and document', subagent_type: 'tech-lead', prompt: req.lastUserText || 'Check the project and draft release notes.' })],
        ...think(600),
      };
    }
    return { text: `tech-lead and its team are done; their report is above.\n\n_${DEMO_NOTICE}_`, ...think(300) };
  }
  return { text: DEMO_NOTICE, ...think(400) };
}

export function demoScript(): Script {
  return (req) => {
    const is = (phrase: string) => req.system.includes(phrase);
    if (is(AGENTS.lead)) return techLead(req);
    if (is(AGENTS.testRunner)) return testRunner(req);
    if (is(AGENTS.docs)) return docsWriter(req);
    if (is(AGENTS.reviewer)) return readOnlyAnswer(req, 'src/count.js', 'Reviewed src/count.js: no bugs found; `topWords` has no test for ties beyond two words.');
    if (is(AGENTS.explainer)) return readOnlyAnswer(req, 'src/count.js', '`count.js` splits text into words, counts lines and ranks the most common words.');
    if (is(AGENTS.helper)) return readOnlyAnswer(req, 'README.md', 'Tally counts words: `node src/cli.js README.md`; its tests run with `node --test test/`.');
    return anyAgent(req);
  };
}

async function main(): Promise<void> {
  const port = Number(process.argv.find((a) => a.startsWith('--port='))?.slice(7) ?? 0);
  const server = await startScriptedServer(demoScript(), { record: false, port });
  console.log(`demo model listening on ${server.url}`);
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
