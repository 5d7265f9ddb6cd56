import type {
  ApolloServerPlugin,
  GraphQLRequestContext,
  GraphQLRequestContextDidEncounterErrors,
  GraphQLRequestContextDidResolveOperation,
  GraphQLRequestContextDidResolveSource,
  GraphQLRequestContextExecutionDidStart,
  GraphQLRequestContextParsingDidStart,
  GraphQLRequestContextResponseForOperation,
  GraphQLRequestContextValidationDidStart,
  GraphQLRequestContextWillSendResponse,
  GraphQLRequestExecutionListener,
  GraphQLRequestListener,
  GraphQLResponse,
} from '@apollo/server';
import type { GraphQLError } from 'graphql';
import type { GraphQLContext } from './context.js';

/** One operation as Apollo's plugin API shows it; the operation runner fills it in as it goes. */
export type OperationContext = GraphQLRequestContext<GraphQLContext>;

/** The fields of the context the runner sets, in the order Apollo sets them. */
export type WritableOperationContext = {
  -readonly [field in keyof OperationContext]: OperationContext[field];
};

type Listener = GraphQLRequestListener<GraphQLContext>;
type DidEnd<Args extends unknown[]> = (...args: Args) => void;

const isDefined = <T>(value: T | undefined | null | void): value is T => value !== undefined && value !== null;

/**
 * The request hooks of the plugins the user registered, as Apollo's request pipeline calls them
 * (requestPipeline.ts of @apollo/server): hooks of one stage run concurrently and are awaited
 * together; "did start" hooks hand back their "did end" hooks, called in reverse order;
 * `responseForOperation` asks each listener in turn until one answers. Made per operation by
 * `PluginHooks.requestDidStart`, and only when some plugin listens, so an operation nobody
 * observes pays for no hook at all.
 */
export class RequestListeners {
  // Each stage's hooks are shown the context as Apollo types it at that stage: the runner has set
  // the fields that stage requires before calling it.
  constructor(
    private readonly listeners: readonly Listener[],
    private readonly context: OperationContext,
  ) {}

  async didResolveSource(): Promise<void> {
    await Promise.all(
      this.listeners.map((listener) => listener.didResolveSource?.(this.context as GraphQLRequestContextDidResolveSource<GraphQLContext>)),
    );
  }

  async parsingDidStart(): Promise<DidEnd<[error?: Error]>> {
    return didEndOf(
      await Promise.all(
        this.listeners.map((listener) => listener.parsingDidStart?.(this.context as GraphQLRequestContextParsingDidStart<GraphQLContext>)),
      ),
    );
  }

  async validationDidStart(): Promise<DidEnd<[errors?: readonly GraphQLError[]]>> {
    return didEndOf(
      await Promise.all(
        this.listeners.map((listener) =>
          listener.validationDidStart?.(this.context as GraphQLRequestContextValidationDidStart<GraphQLContext>),
        ),
      ),
    );
  }

  async didResolveOperation(): Promise<void> {
    await Promise.all(
      this.listeners.map((listener) =>
        listener.didResolveOperation?.(this.context as GraphQLRequestContextDidResolveOperation<GraphQLContext>),
      ),
    );
  }

  async responseForOperation(): Promise<GraphQLResponse | null> {
    for (const listener of this.listeners) {
      const response = await listener.responseForOperation?.(this.context as GraphQLRequestContextResponseForOperation<GraphQLContext>);
      if (isDefined(response)) return response;
    }
    return null;
  }

  /** The execution listeners, latest first, as Apollo orders them. */
  async executionDidStart(): Promise<ExecutionListeners> {
    const started = await Promise.all(
      this.listeners.map((listener) =>
        listener.executionDidStart?.(this.context as GraphQLRequestContextExecutionDidStart<GraphQLContext>),
      ),
    );
    return new ExecutionListeners(started.filter(isDefined).reverse());
  }

  async didEncounterErrors(): Promise<void> {
    await Promise.all(
      this.listeners.map((listener) =>
        listener.didEncounterErrors?.(this.context as GraphQLRequestContextDidEncounterErrors<GraphQLContext>),
      ),
    );
  }

  async willSendResponse(): Promise<void> {
    await Promise.all(
      this.listeners.map((listener) => listener.willSendResponse?.(this.context as GraphQLRequestContextWillSendResponse<GraphQLContext>)),
    );
  }
}

/** What the execution listeners are told: that execution ended, with its error if it threw. */
export class ExecutionListeners {
  constructor(private readonly listeners: readonly GraphQLRequestExecutionListener<GraphQLContext>[]) {}

  async executionDidEnd(error?: Error): Promise<void> {
    await Promise.all(this.listeners.map((listener) => listener.executionDidEnd?.(error)));
  }
}

function didEndOf<Args extends unknown[]>(hooks: (DidEnd<Args> | undefined | void)[]): DidEnd<Args> {
  const didEnd = hooks.filter(isDefined).reverse();
  return (...args) => {
    for (const hook of didEnd) hook(...args);
  };
}

/**
 * The user's plugins (AppDependencies.graphqlPlugins), whose request hooks the gateway calls for
 * every operation it answers: executed, answered from the response cache, or refused. Their
 * server hooks (serverWillStart, serverWillStop, …) are Apollo Server's to call (graphql/apollo.ts).
 */
export class PluginHooks {
  constructor(private readonly plugins: readonly ApolloServerPlugin<GraphQLContext>[]) {}

  /** Whether any plugin is registered: without one, nothing can observe an operation. */
  get observed(): boolean {
    return this.plugins.length > 0;
  }

  /** The operation's listeners, or undefined when no plugin listens to it (ask only when `observed`). */
  async requestDidStart(context: OperationContext): Promise<RequestListeners | undefined> {
    const listeners = (await Promise.all(this.plugins.map((plugin) => plugin.requestDidStart?.(context)))).filter(isDefined);
    return listeners.length > 0 ? new RequestListeners(listeners, context) : undefined;
  }

  /** Tells every plugin that answering the operation failed unexpectedly (a bug, not an error of the operation's). */
  async unexpectedErrorProcessingRequest(context: OperationContext, error: Error): Promise<void> {
    await Promise.all(this.plugins.map((plugin) => plugin.unexpectedErrorProcessingRequest?.({ requestContext: context, error })));
  }
}
