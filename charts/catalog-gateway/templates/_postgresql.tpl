{{/*
Server settings the primary and the replicas share, as postgres command-line arguments. A hot
standby refuses to start when its max_wal_senders (or max_connections) is below the primary's, so
both come from here; wal_level replica and hot_standby are Postgres' defaults, stated so that no
configuration on the volume can turn them off. max_wal_senders covers the largest replicaCount (one
sender each) plus a clone in progress (two), so scaling the replicas never restarts the primary.
*/}}
{{- define "catalog-gateway.postgresql.sharedArgs" -}}
- -c
- wal_level=replica
- -c
- max_wal_senders=16
- -c
- hot_standby=on
- -c
- hba_file=/etc/postgresql/pg_hba.conf
{{- end }}

{{/* Environment every Postgres container of the chart shares: its data folder and the role names. */}}
{{- define "catalog-gateway.postgresql.env" -}}
- name: POSTGRES_USER
  value: {{ .Values.postgresql.auth.username | quote }}
- name: POSTGRES_DB
  value: {{ .Values.postgresql.auth.database | quote }}
- name: POSTGRES_REPLICATION_USER
  value: {{ .Values.postgresql.auth.replicationUsername | quote }}
# A subfolder, so the volume's own lost+found does not upset initdb.
- name: PGDATA
  value: /var/lib/postgresql/data/pgdata
{{- end }}

{{/* The readiness and liveness probes of a Postgres container. */}}
{{- define "catalog-gateway.postgresql.probes" -}}
readinessProbe:
  exec:
    command: [sh, -c, 'pg_isready -h 127.0.0.1 -U "$POSTGRES_USER" -d "$POSTGRES_DB"']
  periodSeconds: 5
  failureThreshold: 3
  timeoutSeconds: 3
livenessProbe:
  exec:
    command: [sh, -c, 'pg_isready -h 127.0.0.1 -U "$POSTGRES_USER" -d "$POSTGRES_DB"']
  initialDelaySeconds: 30
  periodSeconds: 10
  failureThreshold: 6
  timeoutSeconds: 5
{{- end }}

{{/* Volume mounts of every Postgres container of the chart (data, socket, scratch, configuration). */}}
{{- define "catalog-gateway.postgresql.volumeMounts" -}}
- name: data
  mountPath: /var/lib/postgresql/data
- name: run
  mountPath: /var/run/postgresql
- name: tmp
  mountPath: /tmp
- name: config
  mountPath: /etc/postgresql
  readOnly: true
{{- end }}

{{/* The pod volumes those mounts need, besides the data claim. */}}
{{- define "catalog-gateway.postgresql.volumes" -}}
- name: run
  emptyDir: {}
- name: tmp
  emptyDir: {}
- name: config
  configMap:
    name: {{ include "catalog-gateway.componentName" (dict "root" . "component" "postgresql") }}
{{- end }}

{{/* The data volume claim template of a Postgres StatefulSet. Call with (dict "root" $ "component" C). */}}
{{- define "catalog-gateway.postgresql.volumeClaimTemplate" -}}
{{- $persistence := .root.Values.postgresql.persistence -}}
- metadata:
    name: data
    labels:
      {{- include "catalog-gateway.selectorLabels" . | nindent 6 }}
  spec:
    accessModes:
      {{- toYaml $persistence.accessModes | nindent 6 }}
    {{- with include "catalog-gateway.storageClass" (dict "root" .root "persistence" $persistence) }}{{ . | nindent 4 }}{{ end }}
    resources:
      requests:
        storage: {{ $persistence.size }}
{{- end }}

{{/*
The primary's passwords from the Secret. The replication one is optional: an existingSecret made
before read replicas may not have it, and the primary then leaves the replication role alone.
*/}}
{{- define "catalog-gateway.postgresql.passwordEnv" -}}
- name: POSTGRES_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog-gateway.postgresql.secretName" . }}
      key: POSTGRES_PASSWORD
- name: REPLICATION_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog-gateway.postgresql.secretName" . }}
      key: REPLICATION_PASSWORD
      optional: true
{{- end }}

{{/* Where a replica finds the primary and how it authenticates (pg_basebackup and the WAL receiver). */}}
{{- define "catalog-gateway.postgresql.replicaEnv" -}}
- name: PRIMARY_HOST
  value: {{ include "catalog-gateway.postgresql.host" . | quote }}
- name: PRIMARY_PORT
  value: "5432"
- name: PGPASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog-gateway.postgresql.secretName" . }}
      key: REPLICATION_PASSWORD
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- end }}
