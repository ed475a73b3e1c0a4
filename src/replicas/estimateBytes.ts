/**
 * What holding a decoded value costs, roughly, in bytes: for the buffers whose items come from
 * the exchange and may be of any size (an event record's digit strings may carry any number
 * of leading zeros, up to the frame's size), so that they can be bounded in bytes as well as
 * in count. One pass over the value, no allocation, no encoding.
 * @internal
 */

/** Counted for a number, boolean, bigint, null or undefined, and for what lies deeper than {@link MAX_DEPTH}. */
const SCALAR_BYTES = 8;
/** Counted for an object or an array itself. */
const CONTAINER_BYTES = 16;
/** Levels walked: exchange records are flat; deeper values count as a container each. */
const MAX_DEPTH = 8;

/**
 * A string counts its length (UTF-16 units: each at least one byte held), a scalar 8 bytes,
 * an object 16 plus its own keys' lengths and values, an array 16 plus its elements. An
 * estimate of what the value retains, not of its JSON (which it tracks within a few bytes per
 * field for exchange records).
 */
export function estimateBytes(value: unknown): number {
  return bytesOf(value, 0);
}

function bytesOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return SCALAR_BYTES;
  if (depth >= MAX_DEPTH) return CONTAINER_BYTES;
  let bytes = CONTAINER_BYTES;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) bytes += bytesOf(value[i], depth + 1);
    return bytes;
  }
  // A class instance (an order book, a keyed set) is a live view shared by every emission
  // of its replica: counted as a reference, never walked.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return CONTAINER_BYTES;
  const record = value as Record<string, unknown>;
  // for...in rather than Object.keys: no array allocated per record (V8's enum cache).
  for (const key in record) {
    if (!hasOwn.call(record, key)) continue;
    bytes += key.length + bytesOf(record[key], depth + 1);
  }
  return bytes;
}

const hasOwn = Object.prototype.hasOwnProperty;
