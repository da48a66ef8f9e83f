/**
 * A JSON body's unknown field is refused naming it, the empty name `""` too: a check written `if (unknown)` let that
 * one key through (falsy), and POST /v1/api-keys made a key for `{"name":"x","":null}` (the fuzzer found it).
 */
import { describe, expect, it } from 'vitest';
import { createApiKeyFields } from '../../src/account/service.js';
import { parseAutoTopUpSettings, parseLowBalanceAlert } from '../../src/billing/index.js';
import type { BillingSettings } from '../../src/core/config/billing.js';
import { bodyWithFields } from '../../src/core/validate.js';

/** The field checks come before any setting is read. */
const settings = {} as BillingSettings;

describe('body fields', () => {
  for (const name of ['', 'extra']) {
    it(`refuse an unknown field named ${JSON.stringify(name)}, naming it`, () => {
      const refused = { code: 'invalid_body', status: 422, details: { field: name } };
      expect(() => bodyWithFields({ a: 1, [name]: null }, ['a'], 'an object')).toThrow(expect.objectContaining(refused));
      expect(() => createApiKeyFields({ name: 'x', [name]: null })).toThrow(expect.objectContaining(refused));
      expect(() => parseLowBalanceAlert({ enabled: false, [name]: 1 }, settings)).toThrow(expect.objectContaining(refused));
      expect(() => parseAutoTopUpSettings({ enabled: false, [name]: 1 }, settings)).toThrow(expect.objectContaining(refused));
    });
  }

  it('take the known ones', () => {
    expect(bodyWithFields({ a: 1 }, ['a'], 'an object')).toEqual({ a: 1 });
    expect(createApiKeyFields({ name: 'x', scopes: ['read'] })).toEqual({ name: 'x', scopes: ['read'], expiresAt: undefined });
  });
});
