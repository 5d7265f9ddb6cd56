{{/*
Cache settings every Redis server of the chart runs with, as redis-server arguments: nothing is
persisted, and when maxmemory is reached any key may be evicted, least recently used first
(allkeys-lru). The gateway's cache protocol stays correct whatever Redis evicts; a policy that
evicts only keys with a TTL (volatile-*) would instead refuse writes once the keys without one
filled the memory.
*/}}
{{- define "catalog-gateway.redis.cacheArgs" -}}
- --save
- ""
- --appendonly
- "no"
- --maxmemory
- {{ .Values.redis.maxMemory | quote }}
- --maxmemory-policy
- allkeys-lru
{{- end }}

{{/* The Redis password for a Redis container (the probes' redis-cli reads REDISCLI_AUTH). */}}
{{- define "catalog-gateway.redis.passwordEnv" -}}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog-gateway.redis.secretName" . }}
      key: {{ include "catalog-gateway.redis.secretKey" . }}
- name: REDISCLI_AUTH
  value: $(REDIS_PASSWORD)
{{- end }}

{{/* A probe that passes when redis-cli gets PONG from the local server on port. Call with the port. */}}
{{- define "catalog-gateway.redis.pingProbe" -}}
exec:
  command: [sh, -c, '[ "$(redis-cli -p {{ . }} ping)" = PONG ]']
{{- end }}

{{/*
What a pod of the Sentinel setup needs to find its place in it (see redis/sentinel-configmap.yaml):
its own host name under its headless Service, the Sentinels to ask, and server 0's name.
Call with (dict "root" $ "headless" SERVICE).
*/}}
{{- define "catalog-gateway.redis.groupEnv" -}}
{{- $root := .root }}
{{- $sentinels := list }}
{{- range $ordinal := until (int $root.Values.redis.sentinel.sentinels) }}
{{- $sentinels = append $sentinels (include "catalog-gateway.podHost" (dict "root" $root "pod" (printf "%s-%d" (include "catalog-gateway.redis.sentinelName" $root) $ordinal) "service" (include "catalog-gateway.redis.sentinelHeadlessName" $root))) }}
{{- end -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: SELF_HOST
  value: {{ include "catalog-gateway.podHost" (dict "root" $root "pod" "$(POD_NAME)" "service" .headless) | quote }}
- name: INITIAL_PRIMARY
  value: {{ include "catalog-gateway.podHost" (dict "root" $root "pod" (printf "%s-0" (include "catalog-gateway.redis.serverName" $root)) "service" (include "catalog-gateway.redis.headlessName" $root)) | quote }}
- name: SENTINEL_HOSTS
  value: {{ join " " $sentinels | quote }}
- name: MASTER_SET
  value: {{ $root.Values.redis.sentinel.masterSet | quote }}
{{- include "catalog-gateway.redis.passwordEnv" $root | nindent 0 }}
{{- end }}
