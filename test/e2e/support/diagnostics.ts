// What a failing e2e test leaves behind to explain itself: a screenshot, the
// workbench console and the tail of every log of the code-server session,
// saved under test/e2e/artifacts/ and summarised in the error message.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exthostLogs, logTail, readLogs, type RunningCodeServer } from '../../../scripts/code-server.mjs';
import { artifactsDir } from './paths';
import type { Workbench } from './workbench';

export interface Subject {
  workbench?: Workbench;
  server?: RunningCodeServer;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Saves the diagnostics for `name` and returns a summary for an error message. */
export async function collectDiagnostics(name: string, subject: Subject): Promise<string> {
  mkdirSync(artifactsDir, { recursive: true });
  const base = `failure-${slug(name)}`;
  const notes: string[] = [];
  const { workbench, server } = subject;
  if (workbench && !workbench.page.isClosed()) {
    try {
      notes.push(`screenshot: ${await workbench.screenshot(base)}`);
    } catch (e) {
      notes.push(`screenshot failed: ${String(e)}`);
    }
  }
  if (workbench) {
    notes.push(`workbench console: ${workbench.saveConsole(base)}`);
    const errors = workbench.errors().map((e) => `  ${e.text.split('\n')[0]!.slice(0, 200)}`);
    if (errors.length) notes.push(`console errors:\n${errors.slice(-10).join('\n')}`);
  }
  if (server) {
    const logsFile = path.join(artifactsDir, `${base}.logs.txt`);
    writeFileSync(logsFile, `${logTail(server.userDataDir, 200)}\n\n── code-server output\n${server.output()}`);
    notes.push(`code-server logs: ${logsFile}`);
    const exthost = readLogs(exthostLogs(server.userDataDir)).trimEnd().split('\n').slice(-25).join('\n');
    notes.push(`extension-host log (tail):\n${exthost || '  (none written)'}`);
  }
  return notes.join('\n');
}

/**
 * Adds `notes` to an error's message. The reporters print the stack, which
 * was formatted when the error was created, so it is rebuilt around the new
 * message.
 */
export function withNotes(error: unknown, notes: string): Error {
  const text = `\n\n── diagnostics\n${notes}`;
  if (!(error instanceof Error)) return new Error(`${String(error)}${text}`);
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  error.message += text;
  error.stack = [`${error.name}: ${error.message}`, ...frames].join('\n');
  return error;
}

/** Runs `fn`; on failure appends the diagnostics to the error and rethrows. */
export async function withDiagnostics<T>(name: string, subject: Subject, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const notes = await collectDiagnostics(name, subject).catch((e: unknown) => `diagnostics failed: ${String(e)}`);
    throw withNotes(error, notes);
  }
}

/** Polls `check` until it returns a truthy value; throws `message` (and the last error) after `timeoutMs`. */
export async function poll<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs, intervalMs = 250, message }: { timeoutMs: number; intervalMs?: number; message: string },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`${message} (waited ${Math.round(timeoutMs / 1000)} s)${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
