// A node:test reporter that counts leaf results and, at the end, prints one
// `N passed, N failed, N skipped` line. With SUBAGENTS_TEST_COUNTS set it
// also appends the counts, and each skipped test with its reason, to that
// file, so scripts/test.mjs can total several phases and list every skip.
import { appendFileSync } from 'node:fs';
import path from 'node:path';

export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  const skips = [];
  for await (const event of source) {
    // Count leaf tests only: a suite's own pass/fail event repeats its children.
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') continue;
    const why = event.data.skip ?? event.data.todo;
    if (why) {
      const file = event.data.file ? path.relative(process.cwd(), event.data.file) : '';
      skips.push({ name: event.data.name, file, reason: typeof why === 'string' ? why : event.data.todo ? 'todo' : 'no reason given' });
    } else if (event.type === 'test:pass') passed++;
    else failed++;
  }
  const file = process.env.SUBAGENTS_TEST_COUNTS;
  if (file) appendFileSync(file, JSON.stringify({ passed, failed, skipped: skips.length, skips }) + '\n');
  yield `${passed} passed, ${failed} failed, ${skips.length} skipped\n`;
}
