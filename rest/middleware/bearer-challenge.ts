/**
 * The RFC 9728 challenge of `POST /v1/mcp` (rest/routes/mcp.ts), mounted by the app before the router: it points an MCP
 * client to the protected-resource metadata (`GET /.well-known/oauth-protected-resource`, rest/routes/docs.ts).
 */
import type { RequestHandler } from 'express';
import { requestBaseUrl } from '../../src/core/base-url.js';

const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * Adds `WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource"` to the answer of a
 * request whose credential is missing or refused with a 401; the route's auth then answers the 401 envelope.
 */
export function useBearerChallenge(publicUrl: string | null): RequestHandler {
  return (req, res, next) => {
    const { identity, credentialError } = req.sg;
    if (!identity && (!credentialError || credentialError.status === 401)) {
      res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${requestBaseUrl(req, publicUrl)}${PROTECTED_RESOURCE_PATH}"`);
    }
    next();
  };
}
