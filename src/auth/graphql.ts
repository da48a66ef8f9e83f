/**
 * Public metadata of authentication: the built-in issuer's JWKS and RFC 9728 protected-resource metadata
 * (`GET /auth/jwks.json` and `GET /.well-known/oauth-protected-resource` run these queries).
 */
import { builder } from '../core/builder.js';
import { LOCAL_ISSUER } from '../core/identity/jwt.js';

interface ProtectedResource {
  resource: string;
  authorizationServers: string[];
  bearerMethodsSupported: string[];
  scopesSupported: string[];
  resourceDocumentation: string;
  localIssuer: { issuer: string; jwksUri: string } | null;
}

const LocalIssuerType = builder.objectRef<{ issuer: string; jwksUri: string }>('LocalIssuer').implement({
  fields: (t) => ({ issuer: t.exposeString('issuer'), jwksUri: t.exposeString('jwksUri') }),
});

const ProtectedResourceType = builder.objectRef<ProtectedResource>('ProtectedResourceMetadata').implement({
  description: 'RFC 9728 protected-resource metadata: which issuers\' tokens this API accepts.',
  fields: (t) => ({
    resource: t.exposeString('resource'),
    authorizationServers: t.exposeStringList('authorizationServers'),
    bearerMethodsSupported: t.exposeStringList('bearerMethodsSupported'),
    scopesSupported: t.exposeStringList('scopesSupported'),
    resourceDocumentation: t.exposeString('resourceDocumentation'),
    localIssuer: t.field({ type: LocalIssuerType, nullable: true, resolve: (m) => m.localIssuer, description: 'The built-in issuer, when '
      + 'LOCAL_ISSUER is on.' }),
  }),
});

builder.queryFields((t) => ({
  localIssuerJwks: t.field({
    type: 'JSON',
    description: 'JWKS of the built-in issuer (a JSON Web Key Set, an open map by RFC 7517); not_found when LOCAL_ISSUER is off.',
    authScopes: { public: true },
    resolve: (_root, _args, ctx) => ctx.services.auth.jwks(),
  }),
  protectedResource: t.field({
    type: ProtectedResourceType,
    description: 'RFC 9728 protected-resource metadata for the address this request reached.',
    authScopes: { public: true },
    resolve: (_root, _args, ctx) => {
      const base = ctx.baseUrl ?? ctx.config.publicUrl ?? '';
      return {
        resource: base,
        // This server first: Connect (RFC 8414 at /.well-known/oauth-authorization-server) issues API keys.
        authorizationServers: [base, ...ctx.config.auth.oidcIssuers.map((issuer) => issuer.issuer)],
        bearerMethodsSupported: ['header'],
        scopesSupported: ['read', 'write', 'recordings:publish', '*'],
        resourceDocumentation: `${base}/docs`,
        localIssuer: ctx.config.auth.localIssuer ? { issuer: LOCAL_ISSUER, jwksUri: `${base}/auth/jwks.json` } : null,
      };
    },
  }),
}));
