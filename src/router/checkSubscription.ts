/** Client-side checks of a subscription request, before anything is sent. */
import { InvalidParameterError } from '../errors';
import { CHANNEL_NAMES, CHANNELS, isChannelName, isScopeKey, validateScope, type ChannelName, type Scope } from '../protocol';

export type SubscriptionCheck = { ok: true; channel: ChannelName; scope: Scope } | { ok: false; error: InvalidParameterError };

/**
 * Checks the channel name and the scope: only the channel's scope keys, each present and
 * well typed. The error names the offending key (`param`).
 */
export function checkSubscription(channel: string, scope: Readonly<Record<string, unknown>>): SubscriptionCheck {
  if (!isChannelName(channel)) {
    return { ok: false, error: new InvalidParameterError(`unknown channel ${JSON.stringify(channel)} (channels: ${CHANNEL_NAMES.join(', ')})`, { param: 'channel', channel: String(channel) }) };
  }
  if (scope === null || typeof scope !== 'object') {
    return { ok: false, error: new InvalidParameterError(`the scope of channel ${channel} must be an object`, { param: 'scope', channel }) };
  }
  for (const key of Object.keys(scope)) {
    if (scope[key] !== undefined && !isScopeKey(key)) {
      return { ok: false, error: new InvalidParameterError(`${key} is not a scope key (scope keys of channel ${channel}: ${CHANNELS[channel].scopeKeys.join(', ')})`, { param: key, channel }) };
    }
  }
  const checked = validateScope(channel, scope);
  if (!checked.ok) return { ok: false, error: new InvalidParameterError(checked.message, { param: checked.key, channel }) };
  return { ok: true, channel, scope: checked.scope };
}
