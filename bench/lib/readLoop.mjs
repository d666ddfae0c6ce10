// The baseline process for bench/cli.ts: a plain Node read loop over the
// files listed (one path per line) in the file named by argv[2], each read
// as UTF-8 text, as the simplest program that "just reads the files" would.
import { readFileSync } from 'node:fs';

const list = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
let characters = 0;
for (const file of list) characters += readFileSync(file, 'utf8').length;
process.stdout.write(`${list.length} files, ${characters} characters\n`);
