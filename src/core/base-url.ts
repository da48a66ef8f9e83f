/** The address a request reached this server at: PUBLIC_URL when configured, else the request's own protocol and Host. */
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';

export function requestBaseUrl(req: http.IncomingMessage & { protocol?: unknown }, publicUrl: string | null): string {
  if (publicUrl) return publicUrl;
  // express' req.protocol honours the trusted proxy's X-Forwarded-Proto; a bare upgrade request has only its socket.
  const protocol = typeof req.protocol === 'string' ? req.protocol : (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  return `${protocol}://${req.headers.host ?? 'localhost'}`;
}
