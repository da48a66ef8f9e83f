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
import type { PubSub } from '../core/pubsub.js';

const USAGE = `usage: npm run admin -- <command>

  create-account <name> [--scopes read,write] [--expires <RFC 3339>]  a new account and an API key for it
  create-key <accountId> [--scopes ...] [--name ...] [--expires ...]   another key for an account
  revoke-key <apiKeyId>
  create-user <accountId> <email>                                     a person of the built-in issuer and an access token (12 h)
  user-token <userId>                                                 a fresh access token for that person
  suspend <accountId> | unsuspend <accountId>
  billing-credit <accountId> <dollars> [description]                  credit added (or taken back, negative) by hand
  billing-plan <accountId> <planId>                                   move an account to a plan of the plans file

It works on the configured database (DATABASE_URL, else the embedded one in DATA_DIR, which needs the server
stopped). A running server takes POST /v1/api-keys with a key holding write.`;
const COMMANDS = [
  'create-account', 'create-key', 'revoke-key', 'create-user', 'user-token', 'suspend', 'unsuspend', 'billing-credit', 'billing-plan',
];

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { scopes: { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  // An unknown or malformed option: say which, then how to call it (no stack trace).
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const { positionals, values } = parsed;
const [command, ...args] = positionals;
// Usage comes before the database is opened: asking for it must not wait for (or need) the database.
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!command || !COMMANDS.includes(command)) {
  console.error(`${command ? `unknown command '${command}'` : 'no command given'}\n\n${USAGE}`);
  process.exit(2);
}
// The services load only for a command to run: usage and refusals answer at once.
const [
  { loadConfigOrExit }, { openDatabase }, { EmbeddedDatabaseInUseError }, { LOCAL_ISSUER }, { createServices }, { assignPlan, grantCredit },
] = await Promise.all([
  import('../core/config/index.js'),
  import('../core/db/index.js'),
  import('../core/db/embedded.js'),
  import('../core/identity/jwt.js'),
  import('./services.js'),
  import('../billing/index.js'),
]);
const config = loadConfigOrExit();
const db = await openDatabase(config).catch((error: unknown) => {
  if (error instanceof EmbeddedDatabaseInUseError) {
    console.error(`${error.message} (run the admin command while the server is stopped)`);
    process.exit(1);
  }
  throw error;
});
// Administration publishes nothing live; a no-op pub/sub keeps Redis optional for this command.
const quietPubSub: PubSub = {
  publish: () => undefined, subscribe: () => { throw new Error('not available in the admin command'); }, close: async () => undefined,
};
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
      const user = await services.accounts.createLocalUser(
        required(args[0], 'accountId'), { email: required(args[1], 'email') }, LOCAL_ISSUER,
      );
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
      if (!Number.isFinite(dollars) || Math.abs(cents - dollars * 100) > 1e-6) throw new Error('<dollars> must be an amount with at most '
        + 'two decimals');
      const after = await grantCredit(
        db.prisma, billingOn(), required(args[0], 'accountId'), cents,
        args[2] ?? (cents > 0 ? 'Credit added by the operator' : 'Credit taken back by the operator'),
      );
      console.log(JSON.stringify({ balance: after / 100 }));
      break;
    }
    case 'billing-plan':
      await assignPlan(db.prisma, billingOn(), required(args[0], 'accountId'), required(args[1], 'planId'));
      console.log('moved');
      break;
  }
} catch (error) {
  // One line, no stack: what an operator can act on (a record that is not there, a refusal with its reason).
  const { code, message } = error as { code?: string; message?: string };
  const reason = code === 'P2025' || code === 'P2003' ? `no such record (${args.join(' ')})` : (message ?? String(error)).trim().split(
    '\n',
  ).pop();
  console.error(`admin ${command}: ${reason}`);
  process.exitCode = 1;
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
