import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  osDetector,
  processDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * The resource every span carries, as the OpenTelemetry environment specification merges it,
 * later sources winning: the SDK's own (`telemetry.sdk.*`), the gateway's default service name,
 * what the host, OS and process detectors find, then `OTEL_RESOURCE_ATTRIBUTES` (the chart puts
 * the pod's `k8s.*` identity there through the downward API) and `OTEL_SERVICE_NAME` last.
 */
export function tracingResource(defaultServiceName: string): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName }))
    .merge(detectResources({ detectors: [hostDetector, osDetector, processDetector] }))
    .merge(detectResources({ detectors: [envDetector] }));
}
