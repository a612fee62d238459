// A request body as a JSON object, or a 400 that says so.

import type { Context } from 'hono';
import { ClawdError } from '../errors';

export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new ClawdError('bad_request', 'the request body must be a JSON object');
}
