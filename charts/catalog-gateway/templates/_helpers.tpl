{{/* Chart name, overridable. */}}
{{- define "catalog-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Object-name prefix: the release name, plus the chart name unless the release has it. */}}
{{- define "catalog-gateway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of one component's objects: call with (dict "root" $ "component" "redis"). */}}
{{- define "catalog-gateway.componentName" -}}
{{- printf "%s-%s" (include "catalog-gateway.fullname" .root | trunc 50 | trimSuffix "-") .component }}
{{- end }}

{{/* Labels on every object; call with (dict "root" $ "component" "gateway"). */}}
{{- define "catalog-gateway.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "catalog-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: catalog-gateway
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component; call with (dict "root" $ "component" "gateway"). */}}
{{- define "catalog-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "catalog-gateway.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* image reference from an image block: call with (dict "image" .Values.x.image "root" $). */}}
{{- define "catalog-gateway.image" -}}
{{- $registry := (.root.Values.global | default dict).imageRegistry | default .image.registry }}
{{- $name := .image.repository }}
{{- if $registry }}{{ $name = printf "%s/%s" $registry .image.repository }}{{ end }}
{{- if .image.digest }}
{{- printf "%s@%s" $name .image.digest }}
{{- else }}
{{- printf "%s:%s" $name (.image.tag | default .root.Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
Pod security context: the component's podSecurityContext when set (e.g. without uids on
OpenShift, whose SCC assigns them), else the chart's: non-root with the image's uid, RuntimeDefault
seccomp. Call with (dict "uid" N "values" .Values.<component>).
*/}}
{{- define "catalog-gateway.podSecurityContext" -}}
{{- if .values.podSecurityContext }}
{{- toYaml .values.podSecurityContext }}
{{- else }}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
seccompProfile:
  type: RuntimeDefault
{{- end }}
{{- end }}

{{/*
Container security context: the component's securityContext when set, else the chart's:
read-only root, no privilege escalation, no capabilities. Call with .Values.<component>.
*/}}
{{- define "catalog-gateway.containerSecurityContext" -}}
{{- if .securityContext }}
{{- toYaml .securityContext }}
{{- else }}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end }}
{{- end }}

{{/*
Where a pod may run, from a component's values: priorityClassName, nodeSelector, tolerations,
affinity, topologySpreadConstraints (the same keys on every workload). Call with .Values.<component>.
*/}}
{{- define "catalog-gateway.scheduling" -}}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
imagePullSecrets block for a pod spec: global.imagePullSecrets, then imagePullSecrets, each a
Secret's name or {name: …} as Bitnami charts take them, every name once.
*/}}
{{- define "catalog-gateway.imagePullSecrets" -}}
{{- $names := list }}
{{- range concat ((.Values.global | default dict).imagePullSecrets | default list) (.Values.imagePullSecrets | default list) }}
{{- if kindIs "string" . }}{{ $names = append $names . }}{{ else }}{{ $names = append $names .name }}{{ end }}
{{- end }}
{{- with $names | uniq }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{/* A container's extra variables: extraEnv, then Bitnami's extraEnvVars. Call with a component's values. */}}
{{- define "catalog-gateway.extraEnv" -}}
{{- with concat (.extraEnv | default list) (.extraEnvVars | default list) }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/* A container's extra envFrom sources: extraEnvFrom, then Bitnami's extraEnvVarsCM and extraEnvVarsSecret. */}}
{{- define "catalog-gateway.extraEnvFrom" -}}
{{- $sources := .extraEnvFrom | default list }}
{{- with .extraEnvVarsCM }}{{ $sources = append $sources (dict "configMapRef" (dict "name" .)) }}{{ end }}
{{- with .extraEnvVarsSecret }}{{ $sources = append $sources (dict "secretRef" (dict "name" .)) }}{{ end }}
{{- with $sources }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/* A claim's storage class: global.storageClass over the component's; "-" means "" (no dynamic provisioning). */}}
{{- define "catalog-gateway.storageClass" -}}
{{- $class := (.root.Values.global | default dict).storageClass | default .persistence.storageClass }}
{{- if eq (toString $class) "-" }}
storageClassName: ""
{{- else if $class }}
storageClassName: {{ $class | quote }}
{{- end }}
{{- end }}

{{/* ServiceAccount the gateway runs as. */}}
{{- define "catalog-gateway.gateway.serviceAccountName" -}}
{{- if .Values.gateway.serviceAccount.create }}
{{- default (include "catalog-gateway.componentName" (dict "root" . "component" "gateway")) .Values.gateway.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.gateway.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Name of the Secret the chart keeps the gateway's connection URLs and token in. */}}
{{- define "catalog-gateway.gateway.secretName" -}}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "gateway") }}
{{- end }}

{{/* The ConfigMap with the trusted-documents manifest, or "" when there is none. */}}
{{- define "catalog-gateway.gateway.trustedDocumentsName" -}}
{{- $trusted := .Values.gateway.trustedDocuments }}
{{- if $trusted.existingConfigMap.name }}
{{- $trusted.existingConfigMap.name }}
{{- else if $trusted.manifest }}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "trusted-documents") }}
{{- end }}
{{- end }}

{{/*
A generated secret value that survives upgrades: the value already stored in the live Secret if
there is one, else a new random string. Call with (dict "root" $ "secret" NAME "key" KEY).
*/}}
{{- define "catalog-gateway.persistentRandom" -}}
{{- $stored := (lookup "v1" "Secret" .root.Release.Namespace .secret).data | default dict }}
{{- if hasKey $stored .key }}
{{- index $stored .key | b64dec }}
{{- else }}
{{- randAlphaNum 32 }}
{{- end }}
{{- end }}

{{/*
NetworkPolicy letting only some pods of this release reach a datastore's port: by default the
gateway and the loader; "clients" names other components (a datastore's own replicas).
Call with (dict "root" $ "component" "redis" "port" "redis"), optionally "clients" (a list).
*/}}
{{- define "catalog-gateway.datastoreNetworkPolicy" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "catalog-gateway.componentName" . }}
  labels:
    {{- include "catalog-gateway.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "catalog-gateway.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress]
  ingress:
    - from:
        {{- range .clients | default (list "gateway" "loader") }}
        - podSelector:
            matchLabels:
              {{- include "catalog-gateway.selectorLabels" (dict "root" $.root "component" .) | nindent 14 }}
        {{- end }}
      ports:
        - port: {{ .port }}
          protocol: TCP
{{- end }}

{{/* Contents of a file shared from the repo's dashboards/ folder; fails when it is missing. */}}
{{- define "catalog-gateway.dashboardsFile" -}}
{{- $content := .root.Files.Get (printf "files/dashboards/%s" .file) }}
{{- if not $content }}
{{- fail (printf "files/dashboards/%s is missing or empty (the chart's files/dashboards links to the repo's dashboards/ folder)" .file) }}
{{- end }}
{{- $content }}
{{- end }}

{{/* ServiceAccount of a component: call with (dict "root" $ "component" "prometheus"). */}}
{{- define "catalog-gateway.componentServiceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "catalog-gateway.componentName" . }}
  labels:
    {{- include "catalog-gateway.labels" . | nindent 4 }}
{{- end }}

{{/* Binds a component's Role to its ServiceAccount (both named after the component). */}}
{{- define "catalog-gateway.componentRoleBinding" -}}
{{- $name := include "catalog-gateway.componentName" . }}
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $name }}
  labels:
    {{- include "catalog-gateway.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ $name }}
    namespace: {{ .root.Release.Namespace }}
{{- end }}

{{/*
Service in front of a component's pods, each port targeting the container port of its name.
Call with (dict "root" $ "component" "redis" "port" 6379 "portName" "redis") or with "ports" (a
list of (dict "name" N "port" P)); optionally "suffix" (appended to the name), "type",
"annotations", "headless" and "publishNotReadyAddresses".
*/}}
{{- define "catalog-gateway.componentService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "catalog-gateway.componentName" . }}{{ .suffix }}
  labels:
    {{- include "catalog-gateway.labels" . | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- if .headless }}
  # Headless: the name resolves straight to the pods (and gives StatefulSet pods stable names).
  clusterIP: None
  {{- else }}
  type: {{ .type | default "ClusterIP" }}
  {{- end }}
  {{- if .publishNotReadyAddresses }}
  publishNotReadyAddresses: true
  {{- end }}
  selector:
    {{- include "catalog-gateway.selectorLabels" . | nindent 4 }}
  ports:
    {{- range .ports | default (list (dict "name" (.portName | default "http") "port" .port)) }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .name }}
      protocol: TCP
    {{- end }}
{{- end }}

{{/*
Pod anti-affinity keeping a component's pods (and those of the "avoid" components) on different
nodes: "soft" prefers it, "hard" requires it. Call with
(dict "root" $ "mode" "soft" "components" (list "postgresql" "postgresql-read")).
*/}}
{{- define "catalog-gateway.podAntiAffinity" -}}
{{- $term := dict "topologyKey" "kubernetes.io/hostname" "labelSelector" (dict "matchExpressions" (list
  (dict "key" "app.kubernetes.io/name" "operator" "In" "values" (list (include "catalog-gateway.name" .root)))
  (dict "key" "app.kubernetes.io/instance" "operator" "In" "values" (list .root.Release.Name))
  (dict "key" "app.kubernetes.io/component" "operator" "In" "values" .components))) -}}
podAntiAffinity:
{{- if eq .mode "hard" }}
  requiredDuringSchedulingIgnoredDuringExecution:
    - {{ toYaml $term | nindent 6 | trim }}
{{- else }}
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        {{- toYaml $term | nindent 8 }}
{{- end }}
{{- end }}

{{/*
PodDisruptionBudget of a component: call with (dict "root" $ "component" "redis" "budget"
.Values.x.podDisruptionBudget).
*/}}
{{- define "catalog-gateway.podDisruptionBudget" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "catalog-gateway.componentName" . }}
  labels:
    {{- include "catalog-gateway.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ .budget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "catalog-gateway.selectorLabels" . | nindent 6 }}
{{- end }}

{{/*
The gateway's metrics port (METRICS_PORT): gateway.config.metricsPort, the gateway's own default
9464 until that value exists.
*/}}
{{- define "catalog-gateway.gateway.metricsPort" -}}
{{- if hasKey .Values.gateway.config "metricsPort" }}{{ .Values.gateway.config.metricsPort }}{{ else }}9464{{ end }}
{{- end }}

{{/* The ConfigMap with gateway.files, or "" when there are none. */}}
{{- define "catalog-gateway.gateway.filesName" -}}
{{- if .Values.gateway.files }}
{{- include "catalog-gateway.componentName" (dict "root" . "component" "gateway-files") }}
{{- end }}
{{- end }}

{{/* Fingerprint of the catalog source values (and runId): the loader reloads when it changes. */}}
{{- define "catalog-gateway.loader.sourceFingerprint" -}}
{{- $loader := .Values.loader }}
{{- dict "source" $loader.source "generate" $loader.generate "pvc" $loader.pvc "runId" $loader.runId | toJson | sha256sum | trunc 16 }}
{{- end }}
