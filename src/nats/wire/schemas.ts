/** The pieces the bus's JSON records share in their schemas: bigints as decimal strings, a stream's scope. */
import * as z from 'zod/mini';

const DECIMAL = /^[0-9]{1,20}$/;

/** A u64 as JSON carries it on the bus: a decimal string. */
export const Decimal = z.string().check(z.regex(DECIMAL, 'expected a decimal integer string'));
export const NullableDecimal = z.nullable(Decimal);
/** A stream's scope (checked against its channel by the reader). */
export const ScopeSchema = z.record(z.string(), z.union([z.number(), z.boolean(), z.string()]));
