{{/* Name of the in-chart Jaeger's objects. */}}
{{- define "catalog-gateway.jaeger.name" -}}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "jaeger") }}
{{- end }}

{{/* Where the gateway sends its traces (OTLP over HTTP); "" when tracing is off. */}}
{{- define "catalog-gateway.tracing.endpoint" -}}
{{- if .Values.tracing.otlpEndpoint }}
{{- .Values.tracing.otlpEndpoint }}
{{- else if .Values.tracing.jaeger.enabled }}
{{- printf "http://%s:4318" (include "catalog-gateway.jaeger.name" .) }}
{{- end }}
{{- end }}

{{/* Jaeger query URL of Grafana's trace datasource; "" when there is none. */}}
{{- define "catalog-gateway.tracing.queryUrl" -}}
{{- if .Values.grafana.jaegerUrl }}
{{- .Values.grafana.jaegerUrl }}
{{- else if .Values.tracing.jaeger.enabled }}
{{- printf "http://%s:16686" (include "catalog-gateway.jaeger.name" .) }}
{{- end }}
{{- end }}

{{/* The gateway's OpenTelemetry settings (the standard OTEL_* variables); none when tracing is off. */}}
{{- define "catalog-gateway.tracingEnv" -}}
{{- with include "catalog-gateway.tracing.endpoint" . }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ $.Values.tracing.serviceName | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $.Values.tracing.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $.Values.tracing.samplerArg | quote }}
{{- /* The pod's identity from the downward API, then the user's attributes (which win on a clash). */}}
- name: OTEL_K8S_POD_NAME
  valueFrom: { fieldRef: { fieldPath: metadata.name } }
- name: OTEL_K8S_NAMESPACE_NAME
  valueFrom: { fieldRef: { fieldPath: metadata.namespace } }
- name: OTEL_K8S_NODE_NAME
  valueFrom: { fieldRef: { fieldPath: spec.nodeName } }
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "k8s.pod.name=$(OTEL_K8S_POD_NAME),k8s.namespace.name=$(OTEL_K8S_NAMESPACE_NAME),k8s.node.name=$(OTEL_K8S_NODE_NAME)%s" (include "catalog-gateway.tracing.resourceAttributes" $) | quote }}
{{- end }}
{{- end }}

{{/* tracing.resourceAttributes as `,key=value…`, keys sorted; empty when there are none. */}}
{{- define "catalog-gateway.tracing.resourceAttributes" -}}
{{- range $key := keys .Values.tracing.resourceAttributes | sortAlpha }}
{{- printf ",%s=%s" $key (get $.Values.tracing.resourceAttributes $key) }}
{{- end }}
{{- end }}
