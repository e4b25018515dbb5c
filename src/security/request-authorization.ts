// The one authorization check point: the connection hands every request here before its handler when an
// authorizer is configured (and never otherwise: no authorizer, no cost). The API's rule
// (authorization-rules.ts) says what the request needs. A request refused whole throws its
// *_AUTHORIZATION_FAILED code, which the connection answers as any handler's KafkaError (the handler's
// errorResponse, or one built from the definition). A request refused in part is split, as KafkaApis
// splits it: the handler serves the allowed entries, the refused ones are answered from the definition
// with their codes (handlers/error-response.ts) and appended to the handler's lists. So handlers keep
// their shape and never ask the authorizer themselves.
import type { Message } from '../../protocol/codec.js';
import type { MessageDef } from '../../protocol/schema.js';
import { KafkaError, errorName, type ErrorName } from '../../protocol/errors.js';
import { errorResponseFromDefinition } from '../handlers/error-response.js';
import type { RequestContext } from '../server/request-context.js';
import type { Authorizer } from './authorizer.js';
import { RULES, type Ask, type Plan } from './authorization-rules.js';

type Served = Message | null | Promise<Message | null>;

function askFor(authorizer: Authorizer, ctx: RequestContext): Ask {
  const session = ctx.session;
  return {
    can: (op, type, name) => authorizer.authorize(session, op, type, name),
    canOnSomeOfType: (op, type) => authorizer.authorizeByResourceType(session, op, type),
    topicOf: (entry) => {
      if (typeof entry === 'string') return entry; // a list of bare names (DeleteTopics v0-5)
      for (const key of ['name', 'topic', 'topicName']) if (typeof entry[key] === 'string' && entry[key] !== '') return entry[key];
      return Buffer.isBuffer(entry.topicId) ? ctx.topics.getTopicById(entry.topicId)?.name : undefined;
    },
    topicExists: (name) => ctx.topics.getTopic(name) !== undefined,
    autoCreateTopics: ctx.config.bool('auto.create.topics.enable'),
  };
}

/** Serves `request` with `serve` as far as the principal may have it served. */
export function serveAuthorized(authorizer: Authorizer, ctx: RequestContext, def: MessageDef, request: Message, serve: (request: Message) => Served): Served {
  const rule = RULES.get(def.apiKey);
  const plan = rule?.(askFor(authorizer, ctx), request, ctx.apiVersion) ?? null;
  if (plan === null) return serve(request);
  if (plan.deny) throw new KafkaError(errorName(plan.deny.code) as ErrorName, plan.deny.message);
  const { allowed, refused } = split(def, request, ctx.apiVersion, plan);
  const finish = (response: Message | null): Message | null => {
    if (response === null) return null;
    plan.adjust?.(response);
    for (const part of refused) append(response, part);
    return response;
  };
  const served = serve(allowed);
  return served instanceof Promise ? served.then(finish) : finish(served);
}

/** The request the handler serves, and the answers to the entries refused, one per code. */
function split(def: MessageDef, request: Message, version: number, plan: Plan): { allowed: Message; refused: Message[] } {
  if (!plan.field || !plan.denied) return { allowed: request, refused: [] };
  const list = request[plan.field] as unknown[];
  const byCode = new Map<number, unknown[]>();
  for (const [i, code] of plan.denied) {
    const group = byCode.get(code);
    if (group) group.push(list[i]);
    else byCode.set(code, [list[i]]);
  }
  const allowed = { ...request, [plan.field]: list.filter((_, i) => !plan.denied!.has(i)) };
  const refused = [...byCode].map(([code, entries]) =>
    errorResponseFromDefinition(def, { ...request, [plan.field!]: entries }, version, code, `${errorName(code)}: not authorized`),
  );
  return { allowed, refused };
}

/** Appends the entries of each list of `part` to the same list of `response`. */
function append(response: Message, part: Message): void {
  for (const [key, value] of Object.entries(part)) {
    if (!Array.isArray(value) || value.length === 0) continue;
    const into = response[key];
    response[key] = Array.isArray(into) ? [...(into as unknown[]), ...value] : value;
  }
}
