/**
 * Transactions, as every module runs them: the client type a transaction's callback gets, the waits Prisma is given,
 * and the row locks several modules take.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import { errors } from '../errors.js';

export type Tx = Prisma.TransactionClient;

/**
 * Interactive transactions wait for locks (the account's admission lock, a recording row) while the machine may
 * be saturated by transcription; Prisma's 5 s default turns a slow moment into a failed state change. Batch
 * transactions (reads that must agree, two writes together) take them too: on a saturated machine Prisma's 2 s wait
 * for a connection failed `GET …/voice` with "Unable to start a transaction in the given time".
 */
export const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;

/**
 * The transcription's row, locked for this transaction (recordings added to it, from an upload, a live start or a
 * broadcast, serialise on it); 404 for another account's.
 */
export async function lockTranscription(tx: Tx, accountId: string, transcriptionId: string) {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Transcription" WHERE id = ${transcriptionId} AND "accountId" =
    ${accountId} FOR UPDATE`;
  if (rows.length === 0) throw errors.notFound('The transcription');
  return tx.transcription.findUniqueOrThrow({ where: { id: transcriptionId } });
}
