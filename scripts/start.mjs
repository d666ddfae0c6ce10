// `npm start`: run the product. Builds and packages the extension, then opens
// the sample workspace with it:
//   - in desktop VS Code, when a `code` command is on PATH (the extension is
//     loaded from this repository as an extension under development), else
//   - in code-server (real VS Code in the browser; installed on first use),
//     with subagents.vsix installed, opened in a local browser when there is
//     a display. It runs until Ctrl+C.
//
//   npm start                          as above
//   npm start -- --no-browser          only print the URL
//   npm start -- --code-server         use code-server even if `code` exists
//   npm start -- --port=8080           a fixed port (default: a free one)
//   npm start -- --workspace=<dir>     open another folder
//   npm start -- --reset-workspace     recreate the sample workspace copy
//
// The sample workspace is a copy of test/fixtures/sample-workspace in
// .cache/sample-workspace (its own git repository, so worktree isolation has
// a repository to work on), kept between runs so your changes stay.
//
// Without ANTHROPIC_API_KEY in the environment it also starts the built-in
// demo model (scripts/demo-model.ts) and points the extension at it, so the
// agents can be watched at work before you have a key; a key stored in VS Code
// (Subagents: Set API Key) takes over from it at once.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCodeServer, ensureSystemPackages } from './code-server.mjs';
import { cleanEnv, ensureDependencies, mustRun, root } from './env.mjs';
import { withProgress } from './progress.mjs';
import { DEMO_MODEL_ENV, ensureSampleWorkspace, startDemoModel, startProductInCodeServer } from './product.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const vsixPath = path.join(root, 'subagents.vsix');

/** Looks a command up on PATH, as the shell would. */
function onPath(command) {
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

function sampleWorkspace() {
  const chosen = option('workspace');
  if (chosen) {
    const dir = path.resolve(chosen);
    if (!existsSync(dir)) throw new Error(`--workspace: ${dir} does not exist`);
    return dir;
  }
  return ensureSampleWorkspace(path.join(root, '.cache/sample-workspace'), { reset: flag('reset-workspace') });
}

function hasDisplay() {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/**
 * Opens `url` in the user's browser. Returns a child process to stop on exit
 * when we started a browser of our own (with a throw-away profile), else null.
 */
function openBrowser(url) {
  const opener =
    process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['cmd', '/c', 'start', '""'] : onPath('xdg-open') ? ['xdg-open'] : null;
  if (opener) {
    spawn(opener[0], [...opener.slice(1), url], { stdio: 'ignore', detached: true }).unref();
    return null;
  }
  const browser = ['chromium', 'chromium-browser', 'google-chrome'].map(onPath).find(Boolean);
  if (!browser) return null;
  const profile = mkdtempSync(path.join(os.tmpdir(), 'subagents-browser-'));
  const child = spawn(browser, [`--user-data-dir=${profile}`, '--no-first-run', `--app=${url}`], { stdio: 'ignore' });
  child.on('exit', () => rmSync(profile, { recursive: true, force: true }));
  return child;
}

async function main() {
  ensureDependencies();
  console.log('› building and packaging (npm run package)…');
  const packaged = withProgress({ label: 'npm run package', estimate: '20–60 s', capture: true, cwd: root, env: cleanEnv() }, 'npm', ['run', '--silent', 'package']);
  if (packaged.error || packaged.status !== 0) {
    console.error(`\n✕ npm run package failed:\n${packaged.output.trim().split('\n').slice(-30).join('\n')}`);
    process.exit(packaged.status || 1);
  }
  const workspace = sampleWorkspace();
  const demo = process.env.ANTHROPIC_API_KEY ? null : await startDemoModel();
  if (demo) {
    console.log(
      `› no ANTHROPIC_API_KEY: agents run on the built-in demo model (${demo.url}), a short scripted session with the sample agents.\n` +
        '  To use Claude, run "Subagents: Set API Key" in VS Code, or start with ANTHROPIC_API_KEY=… npm start.',
    );
  }

  const code = flag('code-server') ? null : onPath('code');
  if (code) {
    console.log(`› opening ${workspace} in VS Code (${code}) with the extension from ${root}`);
    mustRun(code, ['--new-window', `--extensionDevelopmentPath=${root}`, workspace], {
      env: { ...cleanEnv(), ...(demo ? { [DEMO_MODEL_ENV]: demo.url } : {}) },
    });
    if (!demo) return;
    // The demo model must outlive this command while the window uses it.
    console.log('The demo model keeps running for that window. Press Ctrl+C to stop it.');
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => process.exit(0));
    await demo.exited;
    return;
  }

  ensureSystemPackages();
  ensureCodeServer();
  const portOption = option('port');
  const server = await startProductInCodeServer({
    workspace,
    vsixPath,
    port: portOption ? Number(portOption) : undefined,
    demoModelUrl: demo?.url,
  });
  // Ctrl+C: scripts/code-server.mjs stops the server and exits; this only
  // keeps the end from looking like a crash.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      stopping = true;
      console.log('\n› stopping…');
    });
  }
  process.once('exit', () => {
    if (stopping) console.log('› stopped');
  });
  console.log(`\nSubagents is running in VS Code (code-server) on ${workspace}:\n\n  ${server.folderUrl}\n`);
  const browser = !flag('no-browser') && hasDisplay() ? openBrowser(server.folderUrl) : null;
  if (browser) process.once('exit', () => browser.kill());
  if (!flag('no-browser') && !hasDisplay()) console.log('(no display here: open the address in a browser that can reach this machine)');
  console.log('Press Ctrl+C to stop.');

  const { code: exitCode, signal } = await server.exited;
  if (stopping) return;
  console.error(`\n✕ code-server exited (${signal ?? `code ${exitCode}`}):\n${server.output().trim().split('\n').slice(-20).join('\n')}`);
  await server.stop();
  process.exit(1);
}

main().catch((error) => {
  console.error(`\n✕ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
