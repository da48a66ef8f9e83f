/** What the gateway's middlewares attach to each express request (`req.sg`). */
import type { Identity } from '../src/auth/identity.js';
import type { ApiError } from '../src/errors.js';

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
