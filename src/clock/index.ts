export { SystemClock, systemClock, type Clock, type Timer, type TimerOptions } from './Clock';
