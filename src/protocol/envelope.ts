/**
 * The REST envelope and error bodies (streaming-protocol.md sections 5 and 7;
 * exchange-api-v1.md section 7.1).
 */
import * as z from 'zod/mini';
import { OPERATIONS, type OperationName } from './operations';
import { TimestampNs, Uint64 } from './scalars';

/** Error body as described in the service text: `{code: string, error: string}`. */
export const ErrorBody = z.strictObject({ code: z.string(), error: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Second documented error shape: `{code: integer, message: string}`. */
export const NumericErrorBody = z.strictObject({ code: z.number().check(z.int()), message: z.string() });
export type NumericErrorBody = z.infer<typeof NumericErrorBody>;

/** REST error codes (exchange-api-v1.md 7.1). */
export const REST_ERROR_CODES = ['INVALID_PARAMETER', 'NOT_FOUND', 'INTERNAL_ERROR'] as const;
export type RestErrorCode = (typeof REST_ERROR_CODES)[number];

/** The envelope of a versioned response: `data`, `timestamp_ns`, and per operation `next_cursor` and `sequence`. */
export interface Envelope<D> {
  data: D;
  timestamp_ns: string;
  next_cursor?: string | null;
  sequence?: string;
}

const cache = new Map<OperationName, z.ZodMiniType>();

/** Schema of the whole successful body of an operation: its envelope, or the bare record for unversioned ones. */
export function responseSchema(name: OperationName): z.ZodMiniType {
  let s = cache.get(name);
  if (!s) {
    const op = OPERATIONS[name];
    if (!op.versioned) {
      s = op.data;
    } else {
      const shape: Record<string, z.ZodMiniType> = { data: op.data, timestamp_ns: TimestampNs };
      if (op.pages) shape.next_cursor = z.nullable(z.string().check(z.minLength(1)));
      if ('snapshotOf' in op && op.snapshotOf) shape.sequence = Uint64;
      s = z.strictObject(shape);
    }
    cache.set(name, s);
  }
  return s;
}
