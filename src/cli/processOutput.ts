import { fstatSync, writeSync } from 'node:fs';

/** What a command writes its output to (see CliIO). */
export interface ProcessOutput {
  write(text: string): boolean;
  readonly isTTY: boolean;
  readonly columns: number | undefined;
}

/**
 * The process's stdout or stderr for a command, written with plain write(2)
 * calls while they work. `process.stdout` is a stream whose creation loads
 * Node's stream machinery (a net socket for a pipe): about 6 ms, a sixth of
 * a bare Node start, which a command that prints one answer and exits never
 * needs. Output written this way is on its way before the call returns, as
 * with Node's own stdout on Linux, so nothing is lost at exit and the order
 * with anything written through the stream later is kept. A descriptor that
 * would block (a non-blocking pipe handed over by the parent) gives the rest
 * of the output to the stream, which waits for it; a reader that went away
 * (`subagents agents | head -1`) ends the output quietly, as a closed pipe
 * ends other commands' output.
 */
export function processOutput(fd: 1 | 2, stream: () => NodeJS.WriteStream): ProcessOutput {
  let mode: 'direct' | 'stream' | 'closed' = 'direct';
  let tty: boolean | undefined;
  return {
    write(text: string): boolean {
      if (mode === 'stream') return stream().write(text);
      if (mode === 'closed') return false;
      const data = Buffer.from(text, 'utf8');
      let offset = 0;
      try {
        while (offset < data.length) offset += writeSync(fd, data, offset);
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          mode = 'closed';
          return false;
        }
        if (code !== 'EAGAIN') throw error;
        mode = 'stream';
        return stream().write(data.subarray(offset));
      }
    },
    get isTTY() {
      // Only a character device can be a terminal; asking Node's tty module (which loads the
      // streams) is left to those, and a pipe or a file is answered from one fstat.
      if (tty === undefined) {
        let device = false;
        try {
          device = fstatSync(fd).isCharacterDevice();
        } catch {
          device = false;
        }
        tty = device && stream().isTTY === true;
      }
      return tty;
    },
    get columns() {
      return this.isTTY ? stream().columns : undefined;
    },
  };
}
