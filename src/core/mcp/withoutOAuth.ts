/**
 * Stands in for the MCP SDK's OAuth client (client/auth.js) in the bundles
 * (see scripts/build.mjs): the runtime gives its HTTP and SSE transports no
 * auth provider, so the sign-in flow (discovery, registration, PKCE, token
 * exchange) never runs and need not ship. A server that asks for sign-in is
 * a start failure that says so (connection.ts); a token given in the
 * file's `headers` is sent as given.
 */
export class UnauthorizedError extends Error {
  constructor(message?: string) {
    super(message ?? 'Unauthorized');
  }
}

/** Read by the SSE transport on a 401 even without a provider; only a provider's flow uses the result. */
export function extractWWWAuthenticateParams(): { resourceMetadataUrl?: URL; scope?: string; error?: string } {
  return {};
}

export function auth(): Promise<never> {
  return Promise.reject(new UnauthorizedError('sign-in (OAuth) is not supported'));
}
