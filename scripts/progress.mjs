// A long set-up step that says what it does: runs a command and, while it
// runs, shows what it is, how far it got and how long it has taken so far
// (a line updated in place on a terminal, a line every 20 s elsewhere), then
// how long it took. npm's EBADENGINE warnings (packages that want Node 22+,
// printed because the npm running them is on an older Node) are replaced by
// one line saying why they do not matter here. Plain ESM, Node 20 and 24.
//
// As a module: withProgress(...) runs the step and returns { status, output }.
// As a script (what withProgress runs, so its callers stay synchronous):
//   node scripts/progress.mjs <json options> -- <command> <args…>
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const SELF = import.meta.filename;

export const ENGINE_NOTE =
  '  (npm warned that some packages want Node 22 or newer: that is the Node of the shell running npm; these scripts run them on the Node 24 they install, so nothing is wrong)';

/**
 * Runs `cmd args` with progress on this terminal. `label`: what it does
 * ("installing code-server"); `estimate`: how long it usually takes, said
 * honestly ("2 min on an idle 2-core machine, up to 10 on a busy one");
 * `watch`: a folder whose size on disk shows how far it got; `stages`:
 * [file, words] pairs, the first whose file exists names the stage reached.
 * `capture`: the command's output is returned (for an error message), not
 * shown; else it is shown as it comes. `everyMs`: how often progress is
 * shown (default: every second on a terminal, every 20 s elsewhere).
 */
export function withProgress({ label, estimate = '', watch, stages = [], capture = false, everyMs, cwd, env }, cmd, args) {
  const options = JSON.stringify({ label, estimate, watch, stages, capture, everyMs });
  const r = spawnSync(process.execPath, [SELF, options, '--', cmd, ...args], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status ?? 1, error: r.error, output: r.stdout ?? '' };
}

export function formatElapsed(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Bytes under `dir` (a quick walk; what progress needs, not an exact du). */
function diskSize(dir) {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const current = stack.pop();
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) {
        try {
          total += statSync(full).size;
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return total;
}

/** "1 min 20 s so far · 312 MB on disk · building native modules" */
export function progressLine({ label, estimate, watch, stages }, elapsedMs, sizeBytes) {
  const parts = [`${label}: ${formatElapsed(elapsedMs)} so far`];
  if (watch && sizeBytes !== undefined) parts.push(`${Math.round(sizeBytes / 1e6)} MB on disk`);
  const stage = stages.find(([file]) => existsSync(file));
  if (stage) parts.push(stage[1]);
  if (estimate) parts.push(`usually ${estimate}`);
  return `  … ${parts.join(' · ')}`;
}

/** Drops npm's EBADENGINE lines; calls `note` once when it dropped any. */
export function engineFilter(note) {
  let noted = false;
  return (line) => {
    if (!/^npm (warn|WARN) EBADENGINE/.test(line)) return true;
    if (!noted) {
      noted = true;
      note();
    }
    return false;
  };
}

function lines(stream, onLine) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const line of parts) onLine(line);
  });
  stream.on('end', () => {
    if (rest) onLine(rest);
  });
}

async function main() {
  const split = process.argv.indexOf('--');
  const options = JSON.parse(process.argv[2]);
  const [cmd, ...args] = process.argv.slice(split + 1);
  const started = Date.now();
  const tty = process.stderr.isTTY;
  let shown = false;
  const clear = () => {
    if (tty && shown) process.stderr.write('\r\x1b[K');
  };
  const say = (text) => {
    clear();
    process.stderr.write(`${text}\n`);
    shown = false;
  };
  const keep = engineFilter(() => say(ENGINE_NOTE));
  const out = (line) => {
    if (!keep(line)) return;
    if (options.capture) process.stdout.write(`${line}\n`);
    else say(line);
  };
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  lines(child.stdout, out);
  lines(child.stderr, out);
  // Walking a growing node_modules costs: its size is measured every few seconds, not every tick.
  let size;
  let measured = 0;
  const tick = () => {
    if (options.watch && Date.now() - measured > 5000) {
      size = diskSize(options.watch);
      measured = Date.now();
    }
    const line = progressLine(options, Date.now() - started, size);
    if (tty) {
      process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 120) - 1)}`);
      shown = true;
    } else process.stderr.write(`${line}\n`);
  };
  const timer = setInterval(tick, options.everyMs ?? (tty ? 1000 : 20_000));
  const [code, signal] = await new Promise((resolve) => {
    child.on('error', (error) => {
      say(`${cmd}: ${error.message}`);
      resolve([127, null]);
    });
    child.on('close', (c, s) => resolve([c, s]));
  });
  clearInterval(timer);
  clear();
  if (code === 0) process.stderr.write(`  ✓ ${options.label}: done in ${formatElapsed(Date.now() - started)}\n`);
  process.exit(code ?? (signal ? 1 : 0));
}

if (process.argv[1] === SELF) void main();
