/** What the gateway's middlewares attach to each express request (`req.sg`). */
import type { Identity } from '../src/core/identity/identity.js';
import type { ApiError } from '../src/core/errors.js';

export interface RequestState {
  requestId: string;
  identity: Identity | null;
  credentialError: ApiError | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    sg: RequestState;
  }
}
