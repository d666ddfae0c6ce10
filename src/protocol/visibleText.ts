/**
 * Text from outside (agent names and descriptions from files in a cloned
 * repository, the model's answers, tool summaries, server error messages)
 * made safe to show as plain text, on a terminal or in a notification:
 * control characters could clear the screen, move the cursor, retitle the
 * window or hide part of a command the user is asked to approve. Each is shown as its Unicode control picture
 * (ESC as ␛, CR as ␍), so it stays visible and does nothing; newlines and
 * tabs stay, CRLF becomes LF, and bidirectional overrides, which can reorder
 * what is displayed, are dropped.
 */

// C0 controls except tab and newline, DEL, and the C1 controls (which some terminals also obey).
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

export function visibleText(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(BIDI, '')
    .replace(CONTROLS, (c) => {
      const code = c.charCodeAt(0);
      if (code < 0x20) return String.fromCharCode(0x2400 + code);
      return code === 0x7f ? '\u2421' : '\ufffd';
    });
}

/** The same on one line: newlines and tabs become spaces too. */
export function visibleLine(text: string): string {
  return visibleText(text).replace(/[\n\t]/g, ' ');
}
