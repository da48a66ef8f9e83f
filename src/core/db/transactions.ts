/**
 * Transactions, as every module runs them: the client type a transaction's callback gets, and the waits Prisma is
 * given.
 */
import type { Prisma } from '../../generated/prisma/client.js';

export type Tx = Prisma.TransactionClient;

/**
 * Interactive transactions wait for locks (the account's admission lock, a recording row) while the machine may
 * be saturated by transcription; Prisma's 5 s default turns a slow moment into a failed state change. Batch
 * transactions (reads that must agree, two writes together) take them too: on a saturated machine Prisma's 2 s wait
 * for a connection failed `GET …/voice` with "Unable to start a transaction in the given time".
 */
export const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;
