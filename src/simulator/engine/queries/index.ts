/** The handler of every operation of the operations table. @internal */
import type { OperationName } from '../../../protocol';
import { accountQueries } from './accountQueries';
import type { QueryHandler } from './common';
import { explorerQueries } from './explorerQueries';
import { marketQueries } from './marketQueries';

export const QUERY_HANDLERS: Readonly<Record<OperationName, QueryHandler>> = { ...marketQueries, ...accountQueries, ...explorerQueries };
export { OrderListings } from './OrderListings';
export type { QueryAnswer, QueryContext } from './common';
