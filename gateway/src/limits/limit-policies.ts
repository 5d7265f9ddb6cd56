import type { ClientClass, ClientsConfig, LimitsEntry } from './limits-config.js';
import { policyField } from './ratelimit-fields.js';

/** What one client may spend per window, with the RateLimit-Policy field that announces it. */
export interface ClientPolicy {
  requests: number;
  graphqlCost: number;
  field: string;
  /** Metric labels of its refusals: its class, and its configured name (`anonymous` for an address). */
  labels: { client_class: ClientClass; client: string };
}

export interface PolicyDefaults {
  requests: number;
  graphqlCost: number;
  windowSeconds: number;
}

/**
 * Each client's limits: its own entry in RATE_LIMIT_CLIENTS, else its class's, else the defaults,
 * field by field; undefined when the client or its class is exempt. Made once per class and name.
 */
export class LimitPolicies {
  private readonly policies = new Map<string, ClientPolicy | undefined>();

  constructor(
    private readonly config: ClientsConfig,
    private readonly defaults: PolicyDefaults,
  ) {}

  for(clientClass: ClientClass, name: string | undefined): ClientPolicy | undefined {
    const id = `${clientClass}:${name ?? ''}`;
    if (this.policies.has(id)) return this.policies.get(id);
    const policy = this.resolve(clientClass, name);
    this.policies.set(id, policy);
    return policy;
  }

  private resolve(clientClass: ClientClass, name: string | undefined): ClientPolicy | undefined {
    const own: LimitsEntry = (name && this.config.clients[name]) || {};
    const ofClass: LimitsEntry = this.config.classes[clientClass] ?? {};
    if (own.exempt ?? ofClass.exempt) return undefined;
    const requests = own.requests ?? ofClass.requests ?? this.defaults.requests;
    const graphqlCost = own.graphqlCost ?? ofClass.graphqlCost ?? this.defaults.graphqlCost;
    return {
      requests,
      graphqlCost,
      field: policyField(requests, graphqlCost, this.defaults.windowSeconds),
      labels: { client_class: clientClass, client: name ?? 'anonymous' },
    };
  }
}
