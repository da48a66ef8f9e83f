import type { Request } from 'express';
import type { Config } from '../src/config.js';

/** The address clients reach us at: PUBLIC_URL when configured, else what this request was sent to. */
export function baseUrlOf(req: Request, config: Pick<Config, 'publicUrl'>): string {
  return config.publicUrl ?? `${req.protocol}://${req.get('host')}`;
}
