/**
 * Decoding of server frames. The generic path is `JSON.parse` plus the zod frame schema;
 * per-channel `data` is validated by the consumer with the channels table.
 */
import { ServerFrame } from './frames';
import { summarizeZodError, validateWithDrift, type ValidateOptions } from './validate';

export type DecodeResult = { ok: true; frame: ServerFrame } | { ok: false; reason: 'json' | 'schema'; message: string };

/** Decodes one text frame from the server. Never throws. */
export function decodeServerFrame(text: string, opts: ValidateOptions = {}): DecodeResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: 'json', message: `frame is not valid JSON: ${(e as Error).message}` };
  }
  const r = validateWithDrift(ServerFrame, raw, opts);
  if (!r.ok) return { ok: false, reason: 'schema', message: `frame does not match the protocol: ${summarizeZodError(r.error)}` };
  return { ok: true, frame: r.value as ServerFrame };
}
