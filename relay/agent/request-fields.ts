// Reading one field of an agent request, whatever door it came through: a JSON body, a query
// string (where every value is a string: "1", "true", "20000") or an MCP tool's arguments
// (mcp-tools.ts builds the same fields). Each reader returns the field as its type or throws a 400 naming the field, so the
// parsers in agent-requests.ts and act-request.ts read as a list of fields.

import { ClawdError } from '../errors';
import { normalizeRef } from './snapshot-render';

export type Fields = Record<string, unknown>;

export const bad = (message: string) => new ClawdError('bad_request', message);

const absent = (value: unknown) => value === undefined || value === null;

export function str(body: Fields, field: string, required: true): string;
export function str(body: Fields, field: string, required?: false): string | undefined;
export function str(body: Fields, field: string, required = false): string | undefined {
  const value = body[field];
  if (absent(value)) {
    if (required) throw bad(`${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw bad(`${field} must be a string, got ${JSON.stringify(value)}`);
  if (required && value === '') throw bad(`${field} must not be empty`);
  return value;
}

/** A JSON boolean; absent is false. */
export function bool(body: Fields, field: string): boolean {
  const value = body[field];
  if (absent(value)) return false;
  if (typeof value !== 'boolean') throw bad(`${field} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** A switch as a query string writes it (1/true, 0/false, empty) or a JSON boolean; absent is false. */
export function flag(body: Fields, field: string): boolean {
  const value = body[field];
  if (absent(value) || value === false || value === '' || value === '0' || value === 'false') return false;
  if (value === true || value === '1' || value === 'true') return true;
  throw bad(`${field} must be 1/true or 0/false, got ${JSON.stringify(value)}`);
}

export function oneOf<T extends string>(body: Fields, field: string, allowed: readonly T[]): T | undefined {
  const value = body[field];
  if (absent(value)) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw bad(`${field} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

/** A required JSON integer within bounds. */
export function int(body: Fields, field: string, min: number, max: number): number {
  const value = body[field];
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw bad(`${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return value as number;
}

/** An optional integer within bounds, as a number or a query string's digits. */
export function count(body: Fields, field: string, min: number, max: number): number | undefined {
  const value = body[field];
  if (absent(value) || value === '') return undefined;
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isInteger(n) || (n as number) < min || (n as number) > max) throw bad(`${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n as number;
}

/** A ref, written e12, @e12, ref=e12 or 12; the field name goes into the message. */
export function refParam(raw: unknown, field = 'ref'): string {
  const ref = normalizeRef(raw);
  if (!ref) {
    throw bad(raw === undefined || raw === '' ? `${field} is required (a ref from the snapshot, like e12)` : `${field} ${JSON.stringify(raw)} is not a ref: use one from the snapshot, like e12`);
  }
  return ref;
}

/** An agent session's name: 1–64 letters, digits, ".", "_" or "-". */
export function sessionField(fields: Fields): string | undefined {
  const session = str(fields, 'session');
  if (session === undefined || session === '') return undefined;
  if (!/^[\w.-]{1,64}$/.test(session)) throw bad(`session must be 1–64 letters, digits, ".", "_" or "-", got ${JSON.stringify(session)}`);
  return session;
}
