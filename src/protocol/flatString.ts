/**
 * `s` as one flat (sequential) string. A string built by concatenation or a template
 * literal is a rope in V8: every `charCodeAt` or `startsWith` on it unwraps it again, which
 * a decoder comparing constant tokens char by char pays on every frame. For module constants.
 * @internal
 */
export function flatString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
