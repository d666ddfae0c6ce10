// Preloaded into a CLI process (NODE_OPTIONS=--import): at exit, writes the
// files of dist/ the process loaded (the CommonJS module cache, where the
// CLI's bundles go) to $SUBAGENTS_TEST_LOADED, one a line, and the Node
// modules it loaded after this preload (`stream`, `crypto`…) to
// $SUBAGENTS_TEST_LOADED.builtins.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;
const before = new Set(process.moduleLoadList);
process.on('exit', () => {
  const loaded = Object.keys(cache).filter((file) => /[\\/]dist[\\/]/.test(file));
  writeFileSync(process.env.SUBAGENTS_TEST_LOADED, loaded.join('\n') + '\n');
  const builtins = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  writeFileSync(`${process.env.SUBAGENTS_TEST_LOADED}.builtins`, builtins.join('\n') + '\n');
});
