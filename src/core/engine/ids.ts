import { randomBytes } from 'node:crypto';

/** Short, copy-pastable agent ids (`subagents resume a1b2c3d4e5f6 …`): 48 random bits. */
export function newAgentId(): string {
  return randomBytes(6).toString('hex');
}
