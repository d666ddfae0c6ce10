// Reading the extension-host log of a code-server session.
import { exthostLogs, outputChannelLogs, readLogs } from '../../../scripts/code-server.mjs';
import { EXTENSION_ID } from './paths';

export interface LogEntry {
  time: string;
  level: string;
  /** The first line and any continuation lines (stack traces). */
  text: string;
}

/** Splits a VS Code log (`2026-01-01 10:00:00.000 [info] …`) into entries. */
export function parseLog(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[(\w+)\] ?(.*)$/.exec(line);
    if (m) entries.push({ time: m[1]!, level: m[2]!, text: m[3]! });
    else if (entries.length > 0 && line.trim() !== '') entries[entries.length - 1]!.text += `\n${line}`;
  }
  return entries;
}

export function exthostLogEntries(userDataDir: string): LogEntry[] {
  return parseLog(readLogs(exthostLogs(userDataDir)));
}

/** Extension-host log entries at `levels` that mention our extension (its id or its install folder). */
export function ourExthostEntries(userDataDir: string, levels: string[]): LogEntry[] {
  return exthostLogEntries(userDataDir).filter((e) => levels.includes(e.level) && e.text.includes(EXTENSION_ID));
}

/** What our "Subagents" log output channel has written so far. */
export function ourOutputChannel(userDataDir: string): string {
  return readLogs(outputChannelLogs(userDataDir, EXTENSION_ID));
}
