// A node:test reporter that counts top-level results and, at the end, prints
// one `N passed, N failed, N skipped` line (and appends the counts to the file named by
// SUBAGENTS_TEST_COUNTS, so scripts/test.mjs can total several phases).
import { appendFileSync } from 'node:fs';

export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    // Count leaf tests only: a suite's own pass/fail event repeats its children.
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') continue;
    if (event.data.skip || event.data.todo) skipped++;
    else if (event.type === 'test:pass') passed++;
    else failed++;
  }
  const file = process.env.SUBAGENTS_TEST_COUNTS;
  if (file) appendFileSync(file, JSON.stringify({ passed, failed, skipped }) + '\n');
  yield `${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
