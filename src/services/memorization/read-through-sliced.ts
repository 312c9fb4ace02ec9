/**
 * A request read through its contract as {@link readThrough} reads it, with turns of the event loop while a large
 * array member is copied and checked: a catalogue audit of 100,000 works (40 MB) read in one step held a server's
 * thread about 0.2 s at its submission and again at each slice of its job. Here the array's items are copied and
 * checked one by one, with a turn every {@link SLICE_MS} ms; the rest of the request is checked as one small value.
 * The result is what `readThrough` returns (an equal, separate copy); a refusal is the very error `readThrough`
 * throws: on any schema failure the request is read again in one step, so that the first offending field named is
 * the same (a refused request pays the one-step read, as before). Here beside the memorization operations, whose file
 * loads on demand: the main entry carries none of it.
 */
import {
  checkSchema,
  readThrough,
  type RequestContract,
  type SchemaNode,
  schemaChecked,
} from '../../util/schema-check.js';
import { turnsEvery } from '../../util/steps.js';

/** Longest run of item checks between two turns of the event loop, in ms (as the stores' sliced encoding). */
const SLICE_MS = 5;
/** Arrays shorter than this are read in one step: 1,024 small works take about 2 ms. */
const SLICED_FROM = 1024;

/** Each schema with its large array member's items left unchecked (the member's own bounds kept), made once. */
const HEADS = new WeakMap<SchemaNode, SchemaNode>();

function headSchema(schema: SchemaNode, name: string): SchemaNode {
  let head = HEADS.get(schema);
  if (!head) {
    const { items: _items, ...bounds } = schema.properties![name];
    head = { ...schema, properties: { ...schema.properties, [name]: bounds } };
    HEADS.set(schema, head);
  }
  return head;
}

/** The member of `value` that is an array of at least {@link SLICED_FROM} items its schema describes item by item. */
function largeArrayMember(schema: SchemaNode, value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return;
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    const v = Object.getOwnPropertyDescriptor(value, name)?.value;
    if (member.type === 'array' && member.items && Array.isArray(v) && v.length >= SLICED_FROM) return name;
  }
}

/**
 * {@link readThrough} with a turn of the event loop every 5 ms while a large array member (at least 1,024 items) is
 * copied and checked; small requests, and requests the HTTP adapter's validator checked, are read in one step.
 * @throws what `readThrough` throws for the same request (INVALID_INPUT naming the field; what the rules throw)
 * @example const request = await readThroughSliced(AUDIT_REQUEST, { works, budget_calls: 2000 }, { jobItems: 100_000 })
 */
export async function readThroughSliced<R, C>(contract: RequestContract<R, C>, value: unknown, context: C): Promise<R> {
  const schema = contract.schema as SchemaNode;
  const name = largeArrayMember(schema, value);
  if (name === undefined || schemaChecked(schema, value) || schemaChecked(contract.served, value))
    return readThrough(contract, value, context);
  let request: Record<string, unknown>;
  try {
    const array = (value as Record<string, unknown[]>)[name];
    // the rest first, with the array's bounds (its items as holes): one out of bounds is refused before they are read
    const head = { ...(value as object), [name]: new Array(array.length) };
    request = checkSchema(headSchema(schema, name), head, 'the request') as Record<string, unknown>;
    const itemSchema = schema.properties![name].items!;
    const items = new Array<unknown>(array.length);
    const pause = turnsEvery(SLICE_MS);
    for (let i = 0; i < array.length; i++) {
      items[i] = checkSchema(itemSchema, array[i], `${name}[${i}]`);
      await pause();
    }
    request[name] = items;
  } catch {
    // the refusal as the one-step read words it (the first offending field in its order, its full path)
    return readThrough(contract, value, context);
  }
  contract.rules(request as R, context);
  return request as R;
}
