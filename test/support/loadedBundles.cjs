// Preloaded into a CLI process (NODE_OPTIONS=--require): at exit, writes the
// files of dist/ the process loaded to $SUBAGENTS_TEST_LOADED, one a line.
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) => /[\\/]dist[\\/]/.test(file));
  writeFileSync(process.env.SUBAGENTS_TEST_LOADED, loaded.join('\n') + '\n');
});
