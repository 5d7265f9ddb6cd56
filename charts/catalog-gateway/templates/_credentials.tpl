{{/*
Passwords the chart generates (Postgres, its replication role, Redis) live in Secrets that Helm
keeps on `helm uninstall` (resource-policy keep) and that every later render reads back with
`lookup`: upgrades and reinstalls over a retained volume keep them. A render that cannot see the
cluster (helm template, helm lint, Argo CD, --dry-run=client) cannot read them back, and a new
random password there would rotate the credentials on every sync: such a render must be given the
passwords (or existingSecrets), and validateValues says so.
*/}}

{{/*
"true" when this render reaches the cluster: an install, upgrade or --dry-run=server lists the
release namespace's Secrets (Helm's own release records live there, so whoever runs helm may list
them; a namespace not created yet lists as empty). Without a cluster, lookup returns nothing at all.
*/}}
{{- define "catalog-gateway.clusterReachable" -}}
{{- if (lookup "v1" "Secret" .Release.Namespace "").kind }}true{{ end }}
{{- end }}

{{/*
One credential of a chart Secret: the value given in values; else the one the live Secret holds;
else, when generate is true and the render reaches the cluster, a new random one; else "".
Call with (dict "root" $ "secret" NAME "key" KEY "given" VALUE "generate" BOOL).
*/}}
{{- define "catalog-gateway.credential" -}}
{{- if .given }}
{{- .given }}
{{- else }}
{{- $stored := (lookup "v1" "Secret" .root.Release.Namespace .secret).data | default dict }}
{{- if hasKey $stored .key }}
{{- index $stored .key | b64dec }}
{{- else if and .generate (include "catalog-gateway.clusterReachable" .root) }}
{{- randAlphaNum 32 }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of the Secret with the in-chart Postgres passwords (the chart's, or postgresql.auth.existingSecret). */}}
{{- define "catalog-gateway.postgresql.secretName" -}}
{{- .Values.postgresql.auth.existingSecret | default (include "catalog-gateway.componentName" (dict "root" . "component" "postgresql")) }}
{{- end }}

{{/* The in-chart Postgres password of postgresql.auth.username ("" when a render cannot tell it). */}}
{{- define "catalog-gateway.postgresql.password" -}}
{{- include "catalog-gateway.credential" (dict "root" . "secret" (include "catalog-gateway.postgresql.secretName" .) "key" "POSTGRES_PASSWORD" "given" .Values.postgresql.auth.password "generate" true) }}
{{- end }}

{{/*
The replication role's password: generated once read replicas are enabled, and kept from then on
(so the primary's role does not change when they are scaled to 0 and back).
*/}}
{{- define "catalog-gateway.postgresql.replicationPassword" -}}
{{- include "catalog-gateway.credential" (dict "root" . "secret" (include "catalog-gateway.postgresql.secretName" .) "key" "REPLICATION_PASSWORD" "given" .Values.postgresql.auth.replicationPassword "generate" (gt (int .Values.postgresql.readReplicas.replicaCount) 0)) }}
{{- end }}

{{/* Name and key of the Secret with the in-chart Redis password. */}}
{{- define "catalog-gateway.redis.secretName" -}}
{{- .Values.redis.auth.existingSecret | default (include "catalog-gateway.componentName" (dict "root" . "component" "redis")) }}
{{- end }}
{{- define "catalog-gateway.redis.secretKey" -}}
{{- ternary .Values.redis.auth.existingSecretPasswordKey "REDIS_PASSWORD" (not (empty .Values.redis.auth.existingSecret)) }}
{{- end }}

{{/* The in-chart Redis password ("" when a render cannot tell it). */}}
{{- define "catalog-gateway.redis.password" -}}
{{- include "catalog-gateway.credential" (dict "root" . "secret" (include "catalog-gateway.redis.secretName" .) "key" "REDIS_PASSWORD" "given" .Values.redis.auth.password "generate" true) }}
{{- end }}
