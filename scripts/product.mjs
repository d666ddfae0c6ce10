// How `npm start` runs the product, shared with the e2e test that checks it:
// the built-in demo model when there is no API key, and code-server with the
// packaged extension on a workspace. Plain ESM that runs on Node 20 and 24.
import { spawn } from 'node:child_process';
import { startCodeServer } from './code-server.mjs';
import { node24, node24Env, root } from './env.mjs';

/** Read by the extension (src/vscode/apiKey.ts): the demo model's address. */
export const DEMO_MODEL_ENV = 'SUBAGENTS_DEMO_MODEL_URL';

/**
 * Starts the demo model (scripts/demo-model.ts, on Node 24 through tsx) and
 * resolves with its address once it listens. stop() ends it; it also ends
 * when this process does.
 */
export function startDemoModel({ port } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(node24(), ['--import', 'tsx', 'scripts/demo-model.ts', ...(port ? [`--port=${port}`] : [])], {
      cwd: root,
      env: node24Env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let settled = false;
    const stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    };
    process.once('exit', stop);
    const fail = (message) => {
      if (settled) return;
      settled = true;
      stop();
      reject(new Error(`${message}\n${output.trim().split('\n').slice(-20).join('\n')}`));
    };
    const timer = setTimeout(() => fail('The demo model did not start within 30 s.'), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const url = /demo model listening on (\S+)/.exec(output)?.[1];
      if (url && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({ url, pid: child.pid, stop, exited: new Promise((r) => child.once('exit', r)) });
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', (error) => fail(`The demo model could not start: ${error.message}`));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(`The demo model exited during start-up (${signal ?? `code ${code}`}).`);
    });
  });
}

/**
 * code-server on `workspace` with the packaged extension, trusted, pointed at
 * the demo model when `demoModelUrl` is given. Returns startCodeServer's handle.
 */
export function startProductInCodeServer({ workspace, vsixPath, port, demoModelUrl, env = {}, ...options }) {
  return startCodeServer({
    workspace,
    vsixPath,
    trust: true,
    port,
    env: { ...env, ...(demoModelUrl ? { [DEMO_MODEL_ENV]: demoModelUrl } : {}) },
    ...options,
  });
}
