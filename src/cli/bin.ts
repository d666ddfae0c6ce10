// The `subagents` executable (dist/cli.js). It loads the CLI proper
// (dist/cli-main.cjs, which loads the bundle of the command that runs)
// through a code cache kept after each command has run, so a start skips
// parsing and compiling what the last run of the same command compiled
// (bundleLoader.ts; measured in bench/cli.ts). NODE_DISABLE_COMPILE_CACHE=1
// turns it off.
import path from 'node:path';
import { BundleLoader } from './bundleLoader';

(BundleLoader.forProcess(process.argv, process.env).load(path.join(__dirname, 'cli-main.cjs')) as { main(): void }).main();
