// Checks ACP v1 messages against the JSON schema shipped in the official SDK
// (`@agentclientprotocol/sdk/schema/v1/schema.json`), in both directions.
//
// Each message is checked twice: against the schema's own message union for its sender (the
// `Agent` / `Client` / `ProtocolLevel` entries of the root `anyOf`), and against the one
// definition its method names (`x-method` + `x-side`): a request's or notification's params,
// or a response's result (the method is known from the request it answers). The union alone
// is weak: a result of `{}` matches several responses, so the method-specific check is the
// one that catches a wrong shape.

import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
/** @type {any} */
const schema = require('@agentclientprotocol/sdk/schema/v1/schema.json');

/** @typedef {'agent' | 'client'} Side */

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
// Annotations of the ACP schema (how the Rust SDK deserializes, which side handles a method,
// OpenAPI's `discriminator` naming the tag of a union whose variants already pin it with
// `const`): they constrain nothing here, but strict mode wants them declared.
ajv.addVocabulary([
  'discriminator',
  'x-side',
  'x-method',
  'x-docs-ignore',
  'x-deserialize-default-on-error',
  'x-deserialize-default-on-null',
  'x-deserialize-skip-invalid-items',
]);
/** @param {number} min @param {number} max */
const integer = (min, max) => ({
  type: /** @type {'number'} */ ('number'),
  validate: (/** @type {number} */ n) => Number.isInteger(n) && n >= min && n <= max,
});
ajv.addFormat('uint16', integer(0, 0xffff));
ajv.addFormat('uint32', integer(0, 0xffffffff));
ajv.addFormat('int32', integer(-0x80000000, 0x7fffffff));
ajv.addFormat('uint64', integer(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat('int64', integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat('double', { type: 'number', validate: (n) => Number.isFinite(n) });
ajv.addFormat('uri', (s) => URL.canParse(s));
ajv.addSchema(schema, 'acp');

/** The root union's entry for each sender, by its title. */
const unionIndex = (/** @type {string} */ title) => {
  const i = schema.anyOf.findIndex((/** @type {any} */ s) => s.title === title);
  if (i < 0) throw new Error(`schema.json has no root entry titled ${title}`);
  return ajv.compile({ $ref: `acp#/anyOf/${i}` });
};
const unions = {
  agent: unionIndex('Agent'),
  client: unionIndex('Client'),
  protocol: unionIndex('ProtocolLevel'),
};

/**
 * The definition for a method, by what the message is and who handles it.
 * `x-side` names the side that *handles* the method: the client handles `fs/*`, so an agent's
 * `fs/read_text_file` request is `x-side: client`, and the agent's answer to `initialize` is the
 * `InitializeResponse` with `x-side: agent`.
 * @param {string} method @param {'Request' | 'Response' | 'Notification'} kind @param {string} handler
 */
function definition(method, kind, handler) {
  for (const [name, def] of Object.entries(schema.$defs)) {
    const d = /** @type {any} */ (def);
    if (d['x-method'] === method && name.endsWith(kind) && (d['x-side'] === handler || d['x-side'] === 'protocol')) {
      return { name, validate: ajv.compile({ $ref: `acp#/$defs/${name}` }) };
    }
  }
  return undefined;
}
/** @type {Map<string, ReturnType<typeof definition>>} */
const cache = new Map();
/** @param {string} method @param {'Request' | 'Response' | 'Notification'} kind @param {string} handler */
function definitionFor(method, kind, handler) {
  const key = `${kind} ${handler} ${method}`;
  if (!cache.has(key)) cache.set(key, definition(method, kind, handler));
  return cache.get(key);
}
const errorObject = ajv.compile({ $ref: 'acp#/$defs/Error' });

/** @param {import('ajv').ErrorObject[] | null | undefined} errors */
function describe(errors) {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
}

/**
 * Follows one connection's messages in order and checks each. Keeps, per direction, the
 * requests not yet answered, so a response is checked against the method it answers.
 */
export class WireChecker {
  constructor() {
    /** Requests sent by each side, not answered yet: id -> method. */
    this.pending = { agent: new Map(), client: new Map() };
    /** @type {{from: Side, message: any, problems: string[]}[]} */
    this.log = [];
  }

  /**
   * Checks one message and records it with what is wrong with it.
   * @param {Side} from @param {any} message
   * @returns {string[]} the problems found
   */
  check(from, message) {
    const problems = this.problems(from, message);
    this.log.push({ from, message, problems });
    return problems;
  }

  /** @param {Side} from @param {any} message */
  problems(from, message) {
    const to = from === 'agent' ? 'client' : 'agent';
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return ['not a JSON-RPC message object'];
    }
    const problems = [];
    const isRequest = typeof message.method === 'string' && 'id' in message;
    const isNotification = typeof message.method === 'string' && !('id' in message);
    const isProtocol = typeof message.method === 'string' && message.method.startsWith('$/');
    const union = isProtocol ? unions.protocol : unions[from];
    if (!union(message)) {
      problems.push(`does not match the schema's ${from} message union: ${describe(union.errors).slice(0, 8).join('; ')}`);
    }
    if (isRequest || isNotification) {
      const kind = isRequest ? 'Request' : 'Notification';
      if (isRequest) {
        if (!(typeof message.id === 'string' || Number.isInteger(message.id))) problems.push(`request id ${JSON.stringify(message.id)} is not a string or integer`);
        if (this.pending[from].has(message.id)) problems.push(`request id ${JSON.stringify(message.id)} is already in use`);
        this.pending[from].set(message.id, message.method);
      }
      const def = definitionFor(message.method, kind, isProtocol ? 'protocol' : to);
      if (!def) {
        problems.push(`${message.method} is not a ${kind.toLowerCase()} the ${to} handles in ACP v1`);
      } else if (!def.validate(message.params)) {
        problems.push(`${message.method} params are not a valid ${def.name}: ${describe(def.validate.errors).slice(0, 10).join('; ')}`);
      }
      return problems;
    }
    // A response: exactly one of result / error, for a request of the other side.
    const hasResult = 'result' in message;
    const hasError = 'error' in message;
    if (hasResult === hasError) problems.push('a response must have exactly one of result and error');
    const method = this.pending[to].get(message.id);
    if (method === undefined) {
      // A parse error answers with `id: null`; anything else must answer a request.
      if (!(hasError && message.id === null)) problems.push(`response to unknown request id ${JSON.stringify(message.id)}`);
    } else {
      this.pending[to].delete(message.id);
    }
    if (hasError) {
      if (!errorObject(message.error)) problems.push(`error is not a JSON-RPC error object: ${describe(errorObject.errors).join('; ')}`);
    } else if (hasResult && method !== undefined) {
      const def = definitionFor(method, 'Response', from);
      if (!def) {
        problems.push(`no ${from} response to ${method} in ACP v1`);
      } else if (!def.validate(message.result)) {
        problems.push(`result of ${method} is not a valid ${def.name}: ${describe(def.validate.errors).slice(0, 10).join('; ')}`);
      }
    }
    return problems;
  }

  /** Every message with a problem, shown with its problems. */
  violations() {
    return this.log.filter((e) => e.problems.length > 0).map((e) => ({ from: e.from, problems: e.problems, message: e.message }));
  }
}
