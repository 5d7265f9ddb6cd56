{{/*
How the gateway and the loader find their datastores: env entries with the connection settings,
from the in-chart Postgres and Redis or from externalDatabase / externalRedis. In-chart URLs are
assembled by Kubernetes from the password Secrets ($(VAR) expansion), so each password lives in
exactly one Secret; external URLs come from the chart's gateway Secret or the user's.
*/}}

{{/* Host name of the in-chart Postgres primary (its headless Service resolves to the one pod). */}}
{{- define "catalog-gateway.postgresql.host" -}}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "postgresql") }}
{{- end }}

{{/* Names of the read replicas' StatefulSet (and read Service) and of their headless Service. */}}
{{- define "catalog-gateway.postgresql.readName" -}}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "postgresql-read") }}
{{- end }}
{{- define "catalog-gateway.postgresql.readHeadlessName" -}}
{{- printf "%s-headless" (include "catalog-gateway.postgresql.readName" .) }}
{{- end }}

{{/*
The in-chart replicas as DATABASE_READ_URLS: one URL per replica pod (its stable name under the
headless Service), or the read Service alone (postgresql.readReplicas.gatewayTargets).
*/}}
{{- define "catalog-gateway.postgresql.readUrls" -}}
{{- $auth := .Values.postgresql.auth }}
{{- $readName := include "catalog-gateway.postgresql.readName" . }}
{{- $hosts := list $readName }}
{{- if eq .Values.postgresql.readReplicas.gatewayTargets "pods" }}
{{- $hosts = list }}
{{- range $ordinal := until (int .Values.postgresql.readReplicas.replicaCount) }}
{{- $hosts = append $hosts (printf "%s-%d.%s" $readName $ordinal (include "catalog-gateway.postgresql.readHeadlessName" $)) }}
{{- end }}
{{- end }}
{{- $urls := list }}
{{- range $host := $hosts }}
{{- $urls = append $urls (printf "postgres://%s:$(POSTGRES_PASSWORD)@%s:5432/%s" $auth.username $host $auth.database) }}
{{- end }}
{{- join "," $urls }}
{{- end }}

{{/* Redis server and Sentinel names of the in-chart Sentinel setup (StatefulSets and headless Services). */}}
{{- define "catalog-gateway.redis.serverName" -}}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "redis") }}
{{- end }}
{{- define "catalog-gateway.redis.headlessName" -}}
{{- printf "%s-headless" (include "catalog-gateway.redis.serverName" .) }}
{{- end }}
{{- define "catalog-gateway.redis.sentinelName" -}}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "redis-sentinel") }}
{{- end }}
{{- define "catalog-gateway.redis.sentinelHeadlessName" -}}
{{- printf "%s-headless" (include "catalog-gateway.redis.sentinelName" .) }}
{{- end }}

{{/* A pod's DNS name under a headless Service: call with (dict "root" $ "pod" NAME "service" NAME). */}}
{{- define "catalog-gateway.podHost" -}}
{{- printf "%s.%s.%s.svc" .pod .service .root.Release.Namespace }}
{{- end }}

{{/* The in-chart Sentinels as host:port, comma-separated (REDIS_SENTINELS). */}}
{{- define "catalog-gateway.redis.sentinelAddresses" -}}
{{- $addresses := list }}
{{- range $ordinal := until (int .Values.redis.sentinel.sentinels) }}
{{- $pod := printf "%s-%d" (include "catalog-gateway.redis.sentinelName" $) $ordinal }}
{{- $addresses = append $addresses (printf "%s:26379" (include "catalog-gateway.podHost" (dict "root" $ "pod" $pod "service" (include "catalog-gateway.redis.sentinelHeadlessName" $)))) }}
{{- end }}
{{- join "," $addresses }}
{{- end }}

{{/* "true" when the gateway pods share a Redis (the chart's or an external one). */}}
{{- define "catalog-gateway.sharedRedis" -}}
{{- $external := .Values.externalRedis }}
{{- if or .Values.redis.enabled $external.url $external.sentinels $external.existingSecret.name }}true{{ end }}
{{- end }}

{{/*
Env entries with DATABASE_URL (and, for the gateway, DATABASE_READ_URLS and the Redis settings).
Call with (dict "root" $ "gateway" true).
*/}}
{{- define "catalog-gateway.connectionEnv" -}}
{{- $root := .root }}
{{- $values := $root.Values }}
{{- $gatewaySecret := include "catalog-gateway.gateway.secretName" $root }}
{{- if $values.postgresql.enabled }}
- name: POSTGRES_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog-gateway.postgresql.secretName" $root }}
      key: POSTGRES_PASSWORD
- name: DATABASE_URL
  value: {{ printf "postgres://%s:$(POSTGRES_PASSWORD)@%s:5432/%s" $values.postgresql.auth.username (include "catalog-gateway.postgresql.host" $root) $values.postgresql.auth.database | quote }}
{{- if and .gateway (gt (int $values.postgresql.readReplicas.replicaCount) 0) }}
- name: DATABASE_READ_URLS
  value: {{ include "catalog-gateway.postgresql.readUrls" $root | quote }}
{{- end }}
{{- else }}
{{- $existing := $values.externalDatabase.existingSecret }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ $existing.name | default $gatewaySecret }}
      key: {{ ternary $existing.key "DATABASE_URL" (not (empty $existing.name)) }}
{{- if and .gateway (or (and $existing.name $existing.readUrlsKey) (and (not $existing.name) $values.externalDatabase.readUrls)) }}
- name: DATABASE_READ_URLS
  valueFrom:
    secretKeyRef:
      name: {{ $existing.name | default $gatewaySecret }}
      key: {{ ternary $existing.readUrlsKey "DATABASE_READ_URLS" (not (empty $existing.name)) }}
{{- end }}
{{- end }}
{{- if .gateway }}
{{- include "catalog-gateway.redisEnv" $root }}
{{- end }}
{{- end }}

{{/*
The gateway's Redis settings: REDIS_URL for a single Redis, or REDIS_SENTINELS and
REDIS_SENTINEL_MASTER for a Sentinel setup; REDIS_PASSWORD (and REDIS_SENTINEL_PASSWORD) when
there is one. The in-chart Redis's password is in its URL too, so a gateway that reads only
REDIS_URL authenticates as well.
*/}}
{{- define "catalog-gateway.redisEnv" -}}
{{- $values := .Values }}
{{- $gatewaySecret := include "catalog-gateway.gateway.secretName" . }}
{{- if $values.redis.enabled }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog-gateway.redis.secretName" . }}
      key: {{ include "catalog-gateway.redis.secretKey" . }}
{{- if $values.redis.sentinel.enabled }}
- name: REDIS_SENTINELS
  value: {{ include "catalog-gateway.redis.sentinelAddresses" . | quote }}
- name: REDIS_SENTINEL_MASTER
  value: {{ $values.redis.sentinel.masterSet | quote }}
# The chart's Sentinels require the same password as the Redis servers.
- name: REDIS_SENTINEL_PASSWORD
  value: $(REDIS_PASSWORD)
{{- else }}
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s:6379/0" (include "catalog-gateway.componentName" (dict "root" . "component" "redis")) | quote }}
{{- end }}
{{- else }}
{{- $external := $values.externalRedis }}
{{- $existing := $external.existingSecret }}
{{- if $external.sentinels }}
- name: REDIS_SENTINELS
  value: {{ join "," $external.sentinels | quote }}
- name: REDIS_SENTINEL_MASTER
  value: {{ $external.sentinelMaster | quote }}
{{- range $variable, $source := dict "REDIS_PASSWORD" (list $external.password $existing.passwordKey) "REDIS_SENTINEL_PASSWORD" (list $external.sentinelPassword $existing.sentinelPasswordKey) }}
{{- $key := ternary (index $source 1) (and (index $source 0) $variable) (not (empty $existing.name)) }}
{{- if $key }}
- name: {{ $variable }}
  valueFrom:
    secretKeyRef:
      name: {{ $existing.name | default $gatewaySecret }}
      key: {{ $key }}
{{- end }}
{{- end }}
{{- else if or $external.url $existing.name }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ $existing.name | default $gatewaySecret }}
      key: {{ ternary $existing.key "REDIS_URL" (not (empty $existing.name)) }}
{{- end }}
{{- end }}
{{- end }}
