// The `subagents` executable (dist/cli.js). It only turns on V8's compile
// cache, then loads the CLI proper (dist/cli-main.cjs): code is cached as it
// is compiled, so every later start skips parsing and compiling the bundle
// (measured in bench/cli.ts). The cache lives in Node's default place (the
// system temp folder); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
// Resolved at run time next to this file, not bundled into it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require('./cli-main.cjs') as { main(): void }).main();
