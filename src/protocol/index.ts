/**
 * The protocol module: every wire detail of the exchange in one place (scalars, enums,
 * records, REST envelope, operations table, feed frames, channels table). It imports
 * nothing else of the project; the client and the simulator both build on it.
 */
export * from './scalars';
export * from './enums';
export * from './records';
export * from './params';
export * from './operations';
export * from './envelope';
export * from './channels';
export * from './frames';
export * from './clientFrameCodec';
export * from './serverFrameWriter';
export * from './validate';
export * from './safeParse';
export * from './decode';
export * from './frameSubscriptionId';
export * from './fastDecode';
export * from './fastDecodeSnapshot';
