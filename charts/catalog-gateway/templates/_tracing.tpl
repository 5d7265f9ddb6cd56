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
{{- end }}
{{- end }}
