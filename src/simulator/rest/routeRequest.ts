/**
 * Maps a request path to an operation of the operations table (versioned `/v1/...` paths
 * and the unversioned `/markets`, `/markets/{market_id}`, `/transactions/{hash}`) and
 * extracts its path parameters. @internal
 */
import { OPERATIONS, OPERATION_NAMES, type OperationName } from '../../protocol';

export interface Route {
  readonly name: OperationName;
  /** Path parameters, percent-decoded. */
  readonly pathValues: Record<string, string>;
}

/** A path parameter that is not valid percent-encoding. */
export interface BadPathParam {
  readonly badParam: string;
}

interface Template {
  readonly name: OperationName;
  readonly re: RegExp;
  readonly keys: readonly string[];
}

const exact = new Map<string, OperationName>();
const templates: Template[] = [];
for (const name of OPERATION_NAMES) {
  const path = OPERATIONS[name].path;
  if (!path.includes('{')) {
    exact.set(path, name);
    continue;
  }
  const keys: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_, k: string) => {
    keys.push(k);
    return '([^/]+)';
  });
  templates.push({ name, re: new RegExp(`^${source}$`), keys });
}

/** The operation serving `pathname`, undefined when none does. */
export function routeRequest(pathname: string): Route | BadPathParam | undefined {
  const name = exact.get(pathname);
  if (name) return { name, pathValues: {} };
  for (const t of templates) {
    const m = t.re.exec(pathname);
    if (!m) continue;
    const pathValues: Record<string, string> = {};
    for (let i = 0; i < t.keys.length; i++) {
      try {
        pathValues[t.keys[i]!] = decodeURIComponent(m[i + 1]!);
      } catch {
        return { badParam: t.keys[i]! };
      }
    }
    return { name: t.name, pathValues };
  }
  return undefined;
}
