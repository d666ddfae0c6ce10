import { Redactor } from '../core/redaction';
import type { CliIO } from './command';
import { terminalText } from './render/terminalText';

/**
 * Writes a problem line to stderr as every CLI log line is written: the key
 * and token of the environment redacted (a git error or a corrupt history
 * file can quote text an agent wrote, and that text can hold the key), and
 * control characters shown, not obeyed.
 */
export function problemLine(io: CliIO): (message: string) => void {
  const redactor = new Redactor(() => [io.env.ANTHROPIC_API_KEY, io.env.ANTHROPIC_AUTH_TOKEN]);
  return (message) => io.stderr.write(`subagents: ${terminalText(redactor.text(message))}\n`);
}

