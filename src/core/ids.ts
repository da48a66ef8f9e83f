import crypto from 'node:crypto';

/** An opaque id with its resource's prefix (`trn_…`, `rec_…`): 80 random bits, hex. */
export const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(10).toString('hex')}`;
