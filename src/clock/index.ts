export { SystemClock, systemClock, type Clock, type Timer, type TimerOptions } from './Clock';
export { Backoff, resolveBackoffOptions, type BackoffOptions, type ResolvedBackoffOptions } from './Backoff';
export { sleep } from './sleep';
