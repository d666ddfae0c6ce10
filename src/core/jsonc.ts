/**
 * JSON with comments and trailing commas, as VS Code's `mcp.json` and Gemini
 * CLI's `settings.json` allow: comments and trailing commas are blanked out
 * (outside strings), then the text is read as JSON. A few lines instead of
 * jsonc-parser, which the extension and the language server would otherwise
 * carry for reading configuration files alone. Throws on invalid input.
 */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  // Where the last `,` outside a string was written to `out`, while only blanks and comments followed it.
  let comma = -1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
      comma = -1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new SyntaxError('unterminated comment');
      i = end + 2;
    } else if ((c === '}' || c === ']') && comma >= 0) {
      out = `${out.slice(0, comma)} ${out.slice(comma + 1)}${c}`;
      comma = -1;
      i++;
    } else {
      if (c === ',') comma = out.length;
      else if (!/\s/.test(c)) comma = -1;
      out += c;
      i++;
    }
  }
  return JSON.parse(out);
}
