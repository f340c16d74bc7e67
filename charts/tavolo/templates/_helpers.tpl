{{/*
Names, labels, the image and the environment shared by every component.
Helpers that act on one component take a dict: {"root": $, "component": "<name>"}.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "tavolo.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The prefix of every resource name: <release>-tavolo (or the release name when it already says tavolo). */}}
{{- define "tavolo.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one component's resources: <fullname>-<component>. */}}
{{- define "tavolo.componentName" -}}
{{- printf "%s-%s" (include "tavolo.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of a gRPC service's headless Service (tavolo.replicasService):
     <fullname>-<component>-replicas, which must not be cut to its other Service's name. */}}
{{/* Where a gRPC service answers the standard health check in plaintext: its serving port, or
     grpcAuth.tls.healthPort when the services speak TLS. The probes, `helm test` and its
     NetworkPolicy rule use it. {"root": $, "component": "<name>"} */}}
{{- define "tavolo.healthPort" -}}
{{- if .root.Values.grpcAuth.tls.enabled -}}
{{- int .root.Values.grpcAuth.tls.healthPort -}}
{{- else -}}
{{- include "tavolo.port" . -}}
{{- end -}}
{{- end -}}

{{- define "tavolo.replicasServiceName" -}}
{{- $name := include "tavolo.componentName" (dict "root" .root "component" (printf "%s-replicas" .component)) -}}
{{- if eq $name (include "tavolo.componentName" .) -}}
{{- fail (printf "the names of the %s's two Services are cut to 63 characters and collide (%s): choose a shorter release name or fullnameOverride" .component $name) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{/* The ServiceAccount a component's pods run as. */}}
{{- define "tavolo.serviceAccountName" -}}
{{- if .root.Values.serviceAccounts.create -}}
{{- include "tavolo.componentName" . -}}
{{- else -}}
default
{{- end -}}
{{- end -}}

{{/* Labels that select one component's pods. */}}
{{- define "tavolo.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tavolo.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Labels of every object of one component. */}}
{{- define "tavolo.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "tavolo.selectorLabels" . }}
app.kubernetes.io/version: {{ default .root.Chart.AppVersion .root.Values.image.tag | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/part-of: tavolo
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{/* The image reference: repository@digest, or repository:tag (tag defaults to appVersion). */}}
{{- define "tavolo.image" -}}
{{- $image := .Values.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
An environment value as text. Helm reads numbers from values as float64, which would print
1000000 as 1e+06: whole numbers are printed as integers.
*/}}
{{- define "tavolo.envValue" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/* Whether a value counts as set (neither null nor the empty string). */}}
{{- define "tavolo.isSet" -}}
{{- if and (not (kindIs "invalid" .)) (ne (toString .) "") -}}true{{- end -}}
{{- end -}}

{{/* The port a component serves on: gateway.port, lobby.port, ... */}}
{{- define "tavolo.port" -}}
{{- (index .root.Values .component).port | int -}}
{{- end -}}

{{/* The variable that holds a gRPC component's address. */}}
{{- define "tavolo.addrVariable" -}}
{{- printf "%s_ADDR" (upper .component) -}}
{{- end -}}

{{/*
A gRPC component's address: config.<COMPONENT>_ADDR when set, else its headless Service
<fullname>-<component>-replicas:<port>, whose name resolves to every ready pod. The service
binds the port of this same variable, so an override must keep the component's port.
*/}}
{{- define "tavolo.addr" -}}
{{- $variable := include "tavolo.addrVariable" . -}}
{{- $port := include "tavolo.port" . -}}
{{- $override := index .root.Values.config $variable -}}
{{- if include "tavolo.isSet" $override -}}
{{- if ne (last (splitList ":" (toString $override))) $port -}}
{{- fail (printf "config.%s (%s) must end with the port of %s.port (%s)" $variable $override .component $port) -}}
{{- end -}}
{{- $override -}}
{{- else -}}
{{- printf "%s:%s" (include "tavolo.replicasServiceName" .) $port -}}
{{- end -}}
{{- end -}}

{{/* The gateway's port as APP_PORT: config.APP_PORT when set (it must equal gateway.port). */}}
{{- define "tavolo.appPort" -}}
{{- $port := include "tavolo.port" (dict "root" . "component" "gateway") -}}
{{- $override := .Values.config.APP_PORT -}}
{{- if and (include "tavolo.isSet" $override) (ne (include "tavolo.envValue" $override) $port) -}}
{{- fail (printf "config.APP_PORT (%s) must equal gateway.port (%s)" (include "tavolo.envValue" $override) $port) -}}
{{- end -}}
{{- $port -}}
{{- end -}}

{{/* METRICS_PORT: metrics.port, which config.METRICS_PORT must equal when set. */}}
{{- define "tavolo.metricsPort" -}}
{{- $port := toString (int .Values.metrics.port) -}}
{{- $override := .Values.config.METRICS_PORT -}}
{{- if and (include "tavolo.isSet" $override) (ne (include "tavolo.envValue" $override) $port) -}}
{{- fail (printf "config.METRICS_PORT (%s) must equal metrics.port (%s)" (include "tavolo.envValue" $override) $port) -}}
{{- end -}}
{{- $port -}}
{{- end -}}

{{/*
FORWARDED_ALLOW_IPS: config.FORWARDED_ALLOW_IPS when set; else, with the chart's Ingress, the
private ranges its controller's pods connect from (a cluster's pod network), so that the
gateway believes the X-Forwarded-Proto of the TLS it terminates; else nothing (the default).
*/}}
{{- define "tavolo.forwardedAllowIps" -}}
{{- $override := .Values.config.FORWARDED_ALLOW_IPS -}}
{{- if include "tavolo.isSet" $override -}}
{{- $override -}}
{{- else if .Values.ingress.enabled -}}
10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7
{{- end -}}
{{- end -}}

{{/* Whether Redis is configured (otherwise every service keeps its state in memory): given, or
     the chart's evaluation Redis. */}}
{{- define "tavolo.redisConfigured" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret.name .Values.evaluation.redis.enabled .Values.config.REDIS_SENTINELS -}}true{{- end -}}
{{- end -}}

{{/* Whether Postgres is configured: a full DSN, a password or any DATABASE_* part, or the
     chart's evaluation Postgres. */}}
{{- define "tavolo.databaseConfigured" -}}
{{- $db := .Values.database -}}
{{- $set := or $db.url $db.password (and $db.existingSecret.name (or $db.existingSecret.urlKey $db.existingSecret.passwordKey)) .Values.evaluation.postgres.enabled -}}
{{- range $name, $value := .Values.config -}}
{{- if and (hasPrefix "DATABASE_" $name) (include "tavolo.isSet" $value) -}}
{{- $set = true -}}
{{- end -}}
{{- end -}}
{{- if $set -}}true{{- end -}}
{{- end -}}

{{/*
The non-secret settings, as the data of a ConfigMap: every set key of config, the components'
addresses and the OIDC providers' public settings.
*/}}
{{- define "tavolo.configData" -}}
{{- $root := . -}}
{{- $computed := dict "APP_PORT" (include "tavolo.appPort" .) "METRICS_PORT" (include "tavolo.metricsPort" .) -}}
{{- range $component := list "lobby" "game" "deadlines" "stats" "bots" -}}
{{- $ctx := dict "root" $root "component" $component -}}
{{- $_ := set $computed (include "tavolo.addrVariable" $ctx) (include "tavolo.addr" $ctx) -}}
{{- end -}}
{{- $data := dict -}}
{{- range $name, $value := .Values.config -}}
{{- if include "tavolo.isSet" $value -}}
{{- $_ := set $data $name (include "tavolo.envValue" $value) -}}
{{- end -}}
{{- end -}}
{{- with include "tavolo.forwardedAllowIps" . -}}
{{- $_ := set $computed "FORWARDED_ALLOW_IPS" . -}}
{{- end -}}
{{- $data = merge $computed $data -}}
{{- $fields := dict "issuer" "ISSUER" "clientId" "CLIENT_ID" "redirectUri" "REDIRECT_URI" "postLoginRedirect" "POST_LOGIN_REDIRECT" "postLogoutRedirect" "POST_LOGOUT_REDIRECT" -}}
{{- $seen := dict -}}
{{- range $index, $provider := .Values.oidc.providers -}}
{{- if hasKey $seen $provider.name -}}
{{- fail (printf "oidc.providers: the name %q is used twice" $provider.name) -}}
{{- end -}}
{{- $_ := set $seen $provider.name true -}}
{{- $_ := set $data (printf "OIDC_%d_PROVIDER" $index) $provider.name -}}
{{- range $field, $suffix := $fields -}}
{{- $value := index $provider $field -}}
{{- if include "tavolo.isSet" $value -}}
{{- $_ := set $data (printf "OIDC_%d_%s" $index $suffix) (toString $value) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $data -}}
{{- end -}}

{{/* The secret settings held in the chart's own Secret (those not read from an existing Secret), base64-encoded. */}}
{{- define "tavolo.secretData" -}}
{{- $data := dict -}}
{{- $redis := .Values.redis -}}
{{- $db := .Values.database -}}
{{- if and $redis.url $redis.existingSecret.name -}}
{{- fail "redis: set url or existingSecret.name, not both" -}}
{{- end -}}
{{- if $redis.url -}}
{{- $_ := set $data "REDIS_URL" ($redis.url | b64enc) -}}
{{- else if .Values.evaluation.redis.enabled -}}
{{- $_ := set $data "REDIS_URL" (include "tavolo.evaluationRedisUrl" . | b64enc) -}}
{{- end -}}
{{- if $db.url -}}
{{- if and $db.existingSecret.name $db.existingSecret.urlKey -}}
{{- fail "database: set url or existingSecret (with urlKey), not both" -}}
{{- end -}}
{{- $_ := set $data "DATABASE_URL" ($db.url | b64enc) -}}
{{- else if .Values.evaluation.postgres.enabled -}}
{{- $_ := set $data "DATABASE_URL" (include "tavolo.evaluationDatabaseUrl" . | b64enc) -}}
{{- end -}}
{{- if $db.password -}}
{{- if and $db.existingSecret.name $db.existingSecret.passwordKey -}}
{{- fail "database: set password or existingSecret (with passwordKey), not both" -}}
{{- end -}}
{{- $_ := set $data "DATABASE_PASSWORD" ($db.password | b64enc) -}}
{{- end -}}
{{- range $variable, $field := dict "DATABASE_LISTEN_URL" "listenUrl" "DATABASE_READ_URL" "readUrl" -}}
{{- with index $db $field -}}
{{- if and $db.existingSecret.name (index $db.existingSecret (printf "%sKey" $field)) -}}
{{- fail (printf "database: set %s or existingSecret (with %sKey), not both" $field $field) -}}
{{- end -}}
{{- $_ := set $data $variable (. | b64enc) -}}
{{- end -}}
{{- end -}}
{{- range $index, $provider := .Values.oidc.providers -}}
{{- if $provider.clientSecret -}}
{{- if and $provider.existingSecret $provider.existingSecret.name -}}
{{- fail (printf "oidc.providers[%d] (%s): set clientSecret or existingSecret, not both" $index $provider.name) -}}
{{- end -}}
{{- $_ := set $data (printf "OIDC_%d_CLIENT_SECRET" $index) ($provider.clientSecret | b64enc) -}}
{{- end -}}
{{- end -}}
{{- with .Values.gateway -}}
{{- if .webPushVapidPrivateKey -}}
{{- if .webPushExistingSecret.name -}}
{{- fail "gateway: set webPushVapidPrivateKey or webPushExistingSecret.name, not both" -}}
{{- end -}}
{{- $_ := set $data "WEB_PUSH_VAPID_PRIVATE_KEY" (.webPushVapidPrivateKey | b64enc) -}}
{{- end -}}
{{- end -}}
{{- with .Values.stats -}}
{{- if .cursorSecret -}}
{{- if .cursorExistingSecret.name -}}
{{- fail "stats: set cursorSecret or cursorExistingSecret.name, not both" -}}
{{- end -}}
{{- $_ := set $data "STATS_CURSOR_SECRET" (.cursorSecret | b64enc) -}}
{{- end -}}
{{- end -}}
{{- if $data -}}
{{- toYaml $data -}}
{{- end -}}
{{- end -}}

{{/*
The environment of a tavolo container: the ConfigMap named by .config (the release's own, or
the migration hook's copy), each secret setting as a reference to its key, in the Secret named
by .secret or in an existing Secret, then extraEnv (global, then the component's). The OIDC
client secrets and WEB_PUSH_VAPID_PRIVATE_KEY go to the gateway alone, STATS_CURSOR_SECRET to the stats pods alone: not to the
migration Job, which runs with the stats environment but sets .job. The components (not the Job)
also get their GRPC_* settings (_grpc_auth.tpl).
*/}}
{{- define "tavolo.env" -}}
{{- $values := .root.Values -}}
{{- $secret := .secret -}}
{{- $env := list -}}
{{- $refs := list -}}
{{- /* Each secret goes only to who reads it: Redis to the gateway, game and deadlines (lobby,
     stats and bots keep nothing in Redis, nor does the migration job); Postgres to lobby, game,
     stats and bots (and the job), its owners. */ -}}
{{- if has .component (list "gateway" "game" "deadlines") -}}
{{- with $values.redis -}}
{{- if .existingSecret.name -}}
{{- $refs = append $refs (list "REDIS_URL" .existingSecret.name .existingSecret.key) -}}
{{- else if or .url $values.evaluation.redis.enabled -}}
{{- $refs = append $refs (list "REDIS_URL" $secret "REDIS_URL") -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if has .component (list "lobby" "game" "stats" "bots") -}}
{{- with $values.database -}}
{{- if and .existingSecret.name .existingSecret.urlKey -}}
{{- $refs = append $refs (list "DATABASE_URL" .existingSecret.name .existingSecret.urlKey) -}}
{{- else if or .url $values.evaluation.postgres.enabled -}}
{{- $refs = append $refs (list "DATABASE_URL" $secret "DATABASE_URL") -}}
{{- end -}}
{{- if and .existingSecret.name .existingSecret.passwordKey -}}
{{- $refs = append $refs (list "DATABASE_PASSWORD" .existingSecret.name .existingSecret.passwordKey) -}}
{{- else if .password -}}
{{- $refs = append $refs (list "DATABASE_PASSWORD" $secret "DATABASE_PASSWORD") -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- /* The LISTEN URL to the lobby (the one that LISTENs), the read URL to the stats pods (the
     ones that read history): not to the migration Job, which runs on DATABASE_URL alone. */ -}}
{{- $byUse := dict "lobby" (list "DATABASE_LISTEN_URL" "listenUrl") "stats" (list "DATABASE_READ_URL" "readUrl") -}}
{{- if and (hasKey $byUse .component) (not .job) -}}
{{- $variable := index $byUse .component 0 -}}
{{- $field := index $byUse .component 1 -}}
{{- with $values.database -}}
{{- $key := index .existingSecret (printf "%sKey" $field) -}}
{{- if and .existingSecret.name $key -}}
{{- $refs = append $refs (list $variable .existingSecret.name $key) -}}
{{- else if index . $field -}}
{{- $refs = append $refs (list $variable $secret $variable) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if eq .component "gateway" -}}
{{- with $values.gateway -}}
{{- if .webPushExistingSecret.name -}}
{{- $refs = append $refs (list "WEB_PUSH_VAPID_PRIVATE_KEY" .webPushExistingSecret.name .webPushExistingSecret.key) -}}
{{- else if .webPushVapidPrivateKey -}}
{{- $refs = append $refs (list "WEB_PUSH_VAPID_PRIVATE_KEY" $secret "WEB_PUSH_VAPID_PRIVATE_KEY") -}}
{{- end -}}
{{- end -}}
{{- range $index, $provider := $values.oidc.providers -}}
{{- $variable := printf "OIDC_%d_CLIENT_SECRET" $index -}}
{{- if and $provider.existingSecret $provider.existingSecret.name -}}
{{- $refs = append $refs (list $variable $provider.existingSecret.name $provider.existingSecret.key) -}}
{{- else if $provider.clientSecret -}}
{{- $refs = append $refs (list $variable $secret $variable) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and (eq .component "stats") (not .job) -}}
{{- with $values.stats -}}
{{- if .cursorExistingSecret.name -}}
{{- $refs = append $refs (list "STATS_CURSOR_SECRET" .cursorExistingSecret.name .cursorExistingSecret.key) -}}
{{- else if .cursorSecret -}}
{{- $refs = append $refs (list "STATS_CURSOR_SECRET" $secret "STATS_CURSOR_SECRET") -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $ref := $refs -}}
{{- $env = append $env (dict "name" (index $ref 0) "valueFrom" (dict "secretKeyRef" (dict "name" (index $ref 1) "key" (index $ref 2)))) -}}
{{- end -}}
{{- if not .job -}}
{{- $env = concat $env (include "tavolo.grpcAuthEnv" . | fromYamlArray) -}}
{{- end -}}
{{- $env = concat $env $values.extraEnv ((index $values .component).extraEnv | default list) -}}
envFrom:
  - configMapRef:
      name: {{ .config }}
{{- with $env }}
env:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/* The volumes every tavolo pod has: a writable /tmp, plus extraVolumes. */}}
{{- define "tavolo.volumes" -}}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ .Values.tmpSizeLimit }}
{{- with .Values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/* The volume mounts of every tavolo container. */}}
{{- define "tavolo.volumeMounts" -}}
volumeMounts:
  - name: tmp
    mountPath: /tmp
{{- with .Values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/* Scheduling shared by every pod: node selector, tolerations, pull secrets. */}}
{{- define "tavolo.podScheduling" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
Checks made once per render. State that lives in memory cannot be shared by several replicas, so
a component that scales out (replicas > 1, or autoscaling) needs the stores it keeps its state
in: Redis for the gateway (sessions), game (snapshots, locks, change signals) and deadlines (the
queue); Postgres for lobby (games, seats, join codes), game (move logs), stats (matches, ratings)
and bots (which tables bots play, and the lease of the replica that drives each). Lobby, stats
and bots never read REDIS_URL (the chart does not give it), so they scale without Redis. And an
autoscaler's range must not be empty.
*/}}
{{- define "tavolo.checks" -}}
{{- $root := . -}}
{{- $needsRedis := list "gateway" "game" "deadlines" -}}
{{- $needsPostgres := list "lobby" "game" "stats" "bots" -}}
{{- range $component := list "gateway" "lobby" "game" "deadlines" "stats" "bots" -}}
{{- $values := index $root.Values $component -}}
{{- $hpa := $values.autoscaling -}}
{{- $scaled := or $hpa.enabled (gt (int $values.replicas) 1) -}}
{{- if and $scaled (has $component $needsRedis) (not (include "tavolo.redisConfigured" $root)) -}}
{{- fail (printf "%s: more than one replica (or autoscaling) needs Redis (redis.url, redis.existingSecret or config.REDIS_SENTINELS): without it each pod keeps its own in-memory state" $component) -}}
{{- end -}}
{{- if and $scaled (has $component $needsPostgres) (not (include "tavolo.databaseConfigured" $root)) -}}
{{- fail (printf "%s: more than one replica (or autoscaling) needs Postgres (database.url, database.existingSecret or the DATABASE_* parts): without it each pod keeps its own in-memory store" $component) -}}
{{- end -}}
{{- if and $hpa.enabled (gt (int $hpa.minReplicas) (int $hpa.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling: minReplicas (%d) must not be greater than maxReplicas (%d)" $component (int $hpa.minReplicas) (int $hpa.maxReplicas)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
