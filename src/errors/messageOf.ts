/** What a thrown value says: its `message` (an `Error`, or any object with a string `message`), else the value as a string. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (typeof thrown === 'object' && thrown !== null && 'message' in thrown && typeof thrown.message === 'string') return thrown.message;
  return String(thrown);
}
