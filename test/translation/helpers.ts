/** What the translation suites share: the ApiError a call fails with, and a service over chosen providers. */
import { expect } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import type { TranslationProvider } from '../../src/translation/provider.js';
import { TranslationService } from '../../src/translation/service.js';
import type { TestServer } from '../helpers/server.js';

/** The ApiError `promise` rejects with (the test fails when it resolves or rejects with anything else). */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** A translation service on `server`'s database (its cache) with these providers instead of the configured ones. */
export function serviceWith(server: TestServer, ...providers: TranslationProvider[]): TranslationService {
  return new TranslationService({ config: server.app.config, prisma: server.prisma, pubsub: server.app.pubsub }, providers);
}
