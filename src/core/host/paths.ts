import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROTOCOL_MAJOR } from '../../protocol/host';
import { userHome } from '../runtime/userDirs';

/**
 * Where the agent host listens and how a client proves it is the user: one
 * folder per user that only the user can enter (0700, checked, never through
 * a link), holding the socket (0600), the host's token (0600, read by
 * clients and sent in their hello), its pid and its log. The socket and the
 * token are named for the protocol's major version, so a host that speaks
 * another version runs beside this one until its runs are done. On Windows
 * the socket is a named pipe and the folder is under the user's local
 * application data.
 */

export interface HostPaths {
  dir: string;
  /** A Unix socket (a named pipe on Windows). */
  socket: string;
  token: string;
  /** `{ pid, startedAt, version, build }` of the host listening now. */
  info: string;
  lock: string;
  log: string;
}

/** The per-user folder: `$XDG_RUNTIME_DIR/subagents` (a tmpfs only the user can enter, on Linux), else `<tmp>/subagents-<uid>`. */
export function hostDir(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(userHome(env), 'AppData', 'Local'), 'subagents', 'host');
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'subagents');
  return path.join(os.tmpdir(), `subagents-${process.getuid?.() ?? 'user'}`);
}

/** Sockets' paths are short (104 bytes on macOS, 108 on Linux): a deep folder falls back to the temporary folder's. */
const MAX_SOCKET_PATH = 100;

export function hostPaths(env: NodeJS.ProcessEnv, major = PROTOCOL_MAJOR): HostPaths {
  const dir = hostDir(env);
  const name = `host-p${major}`;
  let socket = path.join(dir, `${name}.sock`);
  if (process.platform === 'win32') {
    const user = Buffer.from(`${os.userInfo().username}:${dir}`).toString('hex').slice(0, 32);
    socket = `\\\\.\\pipe\\subagents-${user}-${name}`;
  } else if (socket.length > MAX_SOCKET_PATH) {
    socket = path.join(os.tmpdir(), `subagents-${process.getuid?.() ?? 'user'}`, `${name}.sock`);
  }
  return { dir, socket, token: path.join(dir, `${name}.token`), info: path.join(dir, `${name}.json`), lock: path.join(dir, `${name}.lock`), log: path.join(dir, 'host.log') };
}

/**
 * Makes the folder (0700) and checks it is ours alone: a directory, not a
 * link, owned by this user, readable by nobody else. A folder another user
 * made (a shared /tmp) is refused, never used.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const info = await lstat(dir);
  if (!info.isDirectory() || info.isSymbolicLink()) throw new Error(`${dir} is not a folder (a link?); the agent host keeps its socket only in a folder of its own.`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new Error(`${dir} belongs to another user (uid ${info.uid}); the agent host will not put its socket there.`);
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** A new token for a host starting now, written where only the user can read it. */
export async function writeToken(file: string): Promise<string> {
  const token = randomBytes(32).toString('hex');
  await rm(file, { force: true });
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(token);
  } finally {
    await handle.close();
  }
  return token;
}

export async function readToken(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim() || null;
  } catch {
    return null;
  }
}
