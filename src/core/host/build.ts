import { version } from '../../../package.json';

/**
 * Which build of the product this is: its version and when it was built
 * (set by scripts/build.mjs; `dev` when it runs from the sources). A host
 * whose build is older than a client's hands over to a new host once
 * nothing is at work in it.
 */
declare const SUBAGENTS_BUILD: string | undefined;

export const PRODUCT_VERSION: string = version;
export const PRODUCT_BUILD: string = typeof SUBAGENTS_BUILD === 'string' ? SUBAGENTS_BUILD : 'dev';

/** Whether `client` is a later build than `host` (builds from the sources are never compared). */
export function newerBuild(client: string, host: string): boolean {
  return client !== 'dev' && host !== 'dev' && client > host;
}
