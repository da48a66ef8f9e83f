/**
 * Identities: the built-in local issuer (its JWKS, tokens for persons of this server) and the verifier that
 * accepts persons' tokens from it and from the OIDC issuers in configuration.
 */
import { IdentityResolver } from '../core/identity/identity.js';
import { createLocalIssuer, JwtVerifier, LOCAL_ISSUER, type LocalIssuer } from '../core/identity/jwt.js';
import { errors } from '../core/errors.js';
import type { ServiceDeps } from '../core/services.js';

declare module '../core/services.js' {
  interface Services {
    auth: AuthService;
  }
}

export class AuthService {
  readonly resolver: IdentityResolver;
  private readonly localIssuer: Promise<LocalIssuer> | null;

  constructor(private readonly deps: ServiceDeps) {
    this.localIssuer = deps.config.auth.localIssuer ? createLocalIssuer(deps.config.dataDir) : null;
    this.localIssuer?.catch(() => undefined); // reported where used
    const verifier = new JwtVerifier(this.localIssuer, deps.config.auth.oidcIssuers);
    this.resolver = new IdentityResolver(deps.prisma, verifier);
  }

  async jwks() {
    if (!this.localIssuer) throw errors.notFound('The local issuer (LOCAL_ISSUER is off)');
    return (await this.localIssuer).jwks;
  }

  /** An access token of the local issuer for a person of this server (admin command, tests, development). */
  async issueLocalToken(principalId: string, ttlS = 3600): Promise<string> {
    if (!this.localIssuer) throw errors.notFound('The local issuer (LOCAL_ISSUER is off)');
    const principal = await this.deps.prisma.principal.findUnique({ where: { id: principalId } });
    if (!principal || principal.kind !== 'user' || principal.issuer !== LOCAL_ISSUER) throw errors.notFound('Local person');
    return (await this.localIssuer).sign({ subject: principal.subject!, email: principal.email, name: principal.displayName }, ttlS);
  }
}
