import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const vsixPath = path.join(repoRoot, 'subagents.vsix');
export const sampleWorkspace = path.join(repoRoot, 'test/fixtures/sample-workspace');
/** Screenshots and logs of the e2e runs (gitignored). */
export const artifactsDir = path.join(repoRoot, 'test/e2e/artifacts');
export const EXTENSION_ID = 'subagents-dev.subagents';
