import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

// A command's output goes out by write(2), without Node's stream machinery (src/cli/processOutput.ts).

const OUTPUT = path.resolve(import.meta.dirname, '../../../src/cli/processOutput.ts');
const CHUNKS = 64;
/** 64 KB a chunk, each chunk's number repeated: order and completeness can be checked. */
const chunk = (i: number) => String(i).padStart(8, '0').repeat(8192);

function script(body: string): string[] {
  return ['--import', 'tsx', '--input-type=module', '-e', `import { processOutput } from ${JSON.stringify(OUTPUT)};\n${body}`];
}

test('to a pipe: every byte in order, and no terminal', () => {
  const child = spawnSync(
    process.execPath,
    script(`
const out = processOutput(1, () => process.stdout);
const chunk = ${chunk.toString()};
for (let i = 0; i < ${CHUNKS}; i++) out.write(chunk(i));
processOutput(2, () => process.stderr).write(JSON.stringify({ isTTY: out.isTTY, columns: out.columns ?? null }));`),
    { maxBuffer: 64 * 1024 * 1024 },
  );
  assert.equal(child.status, 0, child.stderr.toString());
  assert.equal(child.stdout.toString(), Array.from({ length: CHUNKS }, (_, i) => chunk(i)).join(''));
  const report = JSON.parse(child.stderr.toString()) as { isTTY: boolean; columns: number | null };
  assert.equal(report.isTTY, false);
  assert.equal(report.columns, null);
});

test('a descriptor that would block hands the rest to the stream, which keeps the order', async () => {
  // `new net.Socket({ fd: 1 })` makes the pipe non-blocking, as a parent's non-blocking pipe would be; the parent reads late.
  const child = spawn(
    process.execPath,
    script(`
import net from 'node:net';
const socket = new net.Socket({ fd: 1, readable: false, writable: true });
const out = processOutput(1, () => socket);
const chunk = ${chunk.toString()};
for (let i = 0; i < ${CHUNKS}; i++) out.write(chunk(i));
socket.end(() => process.stderr.write(JSON.stringify({ throughStream: socket.bytesWritten })));`),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const parts: Buffer[] = [];
  const errors: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => parts.push(b));
  child.stderr.on('data', (b: Buffer) => errors.push(b));
  child.stdout.resume();
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, Buffer.concat(errors).toString());
  assert.equal(Buffer.concat(parts).toString(), Array.from({ length: CHUNKS }, (_, i) => chunk(i)).join(''));
  const report = JSON.parse(Buffer.concat(errors).toString()) as { throughStream: number };
  assert.ok(report.throughStream > 0, 'the pipe filled up and the stream took the rest');
});

test('a reader that went away ends the output quietly, and the command goes on to its end', async () => {
  const child = spawn(
    process.execPath,
    script(`
const out = processOutput(1, () => process.stdout);
const chunk = ${chunk.toString()};
await new Promise((resolve) => setTimeout(resolve, 200));
let written = 0;
for (let i = 0; i < ${CHUNKS}; i++) if (out.write(chunk(i))) written++;
process.stderr.write('finished after ' + written + ' writes');`),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.destroy();
  const errors: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => errors.push(b));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, Buffer.concat(errors).toString());
  assert.match(Buffer.concat(errors).toString(), /^finished after 0 writes$/);
});
