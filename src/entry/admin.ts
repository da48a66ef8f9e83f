/**
 * `npm run admin -- <command>`: account and credential administration against the configured database.
 *
 *   create-account <name> [--scopes read,write] [--expires 2027-01-01T00:00:00Z]   a new account and an API key for it
 *   create-key <accountId> [--scopes ...] [--name ...] [--expires ...]              another key for an account
 *   revoke-key <apiKeyId>
 *   create-user <accountId> <email>                                                a person of the built-in issuer + a token
 *   user-token <userId>                                                            a fresh access token for that person
 *   suspend <accountId> | unsuspend <accountId>
 *   billing-credit <accountId> <dollars> [description]                            credit added (or taken back, negative) by hand
 *   billing-plan <accountId> <planId>                                              move an account to a plan of the plans file
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config/index.js';
import { openDatabase } from '../core/db/index.js';
import { EmbeddedDatabaseInUseError } from '../core/db/embedded.js';
import { LOCAL_ISSUER } from '../core/identity/jwt.js';
import { createServices } from './services.js';
import { assignPlan, grantCredit } from '../billing/operator.js';
import type { PubSub } from '../core/pubsub.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { scopes: { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' } },
});
const [command, ...args] = positionals;
const config = loadConfig();
const db = await openDatabase(config).catch((error: unknown) => {
  if (error instanceof EmbeddedDatabaseInUseError) {
    console.error(`${error.message} (run the admin command while the server is stopped)`);
    process.exit(1);
  }
  throw error;
});
// Administration publishes nothing live; a no-op pub/sub keeps Redis optional for this command.
const quietPubSub: PubSub = { publish: () => undefined, subscribe: () => { throw new Error('not available in the admin command'); }, close: async () => undefined };
const services = createServices({ config, prisma: db.prisma, pubsub: quietPubSub });
const scopes = values.scopes?.split(',').map((scope) => scope.trim()).filter(Boolean);
const expiresAt = values.expires ? new Date(values.expires) : null;

try {
  switch (command) {
    case 'create-account': {
      const account = await services.accounts.createAccount(args[0] ?? 'Account');
      const key = await services.accounts.createApiKey(account.id, { scopes, expiresAt, displayName: values.name });
      console.log(JSON.stringify({ accountId: account.id, apiKeyId: key.principalId, apiKey: key.key, scopes: scopes ?? ['*'] }, null, 2));
      break;
    }
    case 'create-key': {
      const key = await services.accounts.createApiKey(required(args[0], 'accountId'), { scopes, expiresAt, displayName: values.name });
      console.log(JSON.stringify({ apiKeyId: key.principalId, apiKey: key.key }, null, 2));
      break;
    }
    case 'revoke-key':
      await services.accounts.revokeKey(required(args[0], 'apiKeyId'));
      console.log('revoked');
      break;
    case 'create-user': {
      const user = await services.accounts.createLocalUser(required(args[0], 'accountId'), { email: required(args[1], 'email') }, LOCAL_ISSUER);
      console.log(JSON.stringify({ userId: user.id, accessToken: await services.auth.issueLocalToken(user.id, 12 * 3600) }, null, 2));
      break;
    }
    case 'user-token':
      console.log(await services.auth.issueLocalToken(required(args[0], 'userId'), 12 * 3600));
      break;
    case 'suspend':
    case 'unsuspend':
      await services.accounts.setSuspended(required(args[0], 'accountId'), command === 'suspend');
      console.log(`${command}ed`);
      break;
    case 'billing-credit': {
      const dollars = Number(required(args[1], 'dollars'));
      const cents = Math.round(dollars * 100);
      if (!Number.isFinite(dollars) || Math.abs(cents - dollars * 100) > 1e-6) throw new Error('<dollars> must be an amount with at most two decimals');
      const after = await grantCredit(db.prisma, billingOn(), required(args[0], 'accountId'), cents, args[2] ?? (cents > 0 ? 'Credit added by the operator' : 'Credit taken back by the operator'));
      console.log(JSON.stringify({ balance: after / 100 }));
      break;
    }
    case 'billing-plan':
      await assignPlan(db.prisma, billingOn(), required(args[0], 'accountId'), required(args[1], 'planId'));
      console.log('moved');
      break;
    default:
      console.error('usage: npm run admin -- create-account <name> [--scopes read,write] [--expires <RFC 3339>] | create-key <accountId> | revoke-key <id> | create-user <accountId> <email> | user-token <userId> | suspend|unsuspend <accountId> | billing-credit <accountId> <dollars> [description] | billing-plan <accountId> <planId>');
      process.exitCode = 1;
  }
} finally {
  await db.close();
}

function billingOn() {
  if (!config.billing.enabled) {
    console.error('billing is off: set BILLING_CONFIG to the plans file');
    process.exit(1);
  }
  return config.billing;
}

function required(value: string | undefined, name: string): string {
  if (!value) {
    console.error(`missing <${name}>`);
    process.exit(1);
  }
  return value;
}
