/** What the feed server asks the engine before accepting a subscription. @internal */
import type { ChannelName, Scope } from '../protocol';

/** Lets the feed check that a scope names things that exist (else INVALID_SUBSCRIPTION). */
export interface ScopeChecker {
  /** Returns an error message when the scope names an unknown market or account, else undefined. */
  checkScopeExists(channel: ChannelName, scope: Scope): string | undefined;
}
