import { hash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors.js';

const digest = (value: string) => hash('sha256', value, 'buffer');

/**
 * Checks `Authorization: Bearer <token>` against the configured write token in constant time
 * (comparing digests, so the token's length does not leak either). No token configured → no writes.
 */
export function assertWriteAllowed(authorization: string | undefined, writeToken: string | undefined): void {
  const presented = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  if (!writeToken || presented === undefined || !timingSafeEqual(digest(presented), digest(writeToken))) {
    throw new UnauthorizedError();
  }
}
