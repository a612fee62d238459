// The server's side of shared/key-proof.ts, synchronous (node:crypto): the relay checks the
// extension's answer inside its frame handler, where an awaited WebCrypto call would let later
// frames overtake the hello. Same message, same bytes as the extension's WebCrypto.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { proofMessage, type ProofRole } from '../../shared/key-proof';

export function keyProofSync(key: string, role: ProofRole, port: number, nonce: string): string {
  return createHmac('sha256', key)
    .update(proofMessage(role, port, nonce))
    .digest('base64url');
}

/** True when `candidate` is the proof of `key` for this role, port and nonce (constant time). */
export function proofMatches(candidate: unknown, key: string, role: ProofRole, port: number, nonce: string): boolean {
  if (typeof candidate !== 'string') return false;
  const expected = Buffer.from(keyProofSync(key, role, port, nonce));
  const given = Buffer.from(candidate);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
