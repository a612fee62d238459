// Proof that one side knows a key, without the key crossing the wire: HMAC-SHA256 of a message
// naming who proves, the server's own port and a nonce the other side just chose. The relay
// proves the extension key to the extension before the extension proves it back, and the control
// API proves the token and the person's key to clawd's own clients before they send them — so a
// program that took a port while clawd was down learns nothing and is never obeyed. A proof for
// one role, port or nonce is worth nothing for another. WebCrypto: the same code runs in the
// extension's worker and in Node (the relay computes the same bytes with node:crypto, in
// relay/http/key-proofs.ts, where it must answer synchronously).

/** Who proves: the relay and the extension to each other; the control API for the token (`agent`) and the person's key. */
export type ProofRole = 'relay' | 'extension' | 'agent' | 'person';

/** A nonce as it travels: 16 to 64 base64url characters. */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && NONCE_PATTERN.test(value);
}

/** The message a proof signs; one format for both implementations. */
export function proofMessage(role: ProofRole, port: number, nonce: string): string {
  return `clawd-proof/1|${role}|${port}|${nonce}`;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A fresh nonce: 18 random bytes. */
export function newNonce(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(18)));
}

/** HMAC-SHA256(key, proofMessage(role, port, nonce)), base64url. */
export async function keyProof(key: string, role: ProofRole, port: number, nonce: string): Promise<string> {
  const encoder = new TextEncoder();
  const hmacKey = await crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const signature = await crypto.subtle.sign('HMAC', hmacKey, encoder.encode(proofMessage(role, port, nonce)));
  return base64url(new Uint8Array(signature));
}

/** Compares two proofs without stopping at the first difference. */
export function proofsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
