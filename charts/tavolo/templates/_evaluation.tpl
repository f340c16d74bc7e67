{{/*
The evaluation-only parts (evaluation.*, NOT FOR PRODUCTION): the development OIDC provider and
a single-pod Redis and Postgres, for a laptop cluster. Their objects carry the label and the
annotation not-for-production.
*/}}

{{- define "tavolo.notForProductionLabel" -}}
not-for-production: "true"
{{- end -}}

{{- define "tavolo.notForProductionAnnotation" -}}
not-for-production: "evaluation only: a single pod, no replica, no backup"
{{- end -}}

{{/* The Secret of the evaluation stores' passwords. */}}
{{- define "tavolo.evaluationSecretName" -}}
{{- printf "%s-evaluation" (include "tavolo.fullname" .) -}}
{{- end -}}

{{/*
The passwords of the evaluation stores that are on, as YAML {redis-password, postgres-password}:
given, or kept in the Secret, or made at install (_kept.tpl); an offline render must be given
them. Chosen once per rendering, like the gRPC tokens.
*/}}
{{- define "tavolo.evaluationPasswords" -}}
{{- $evaluation := .Values.evaluation -}}
{{- if not (hasKey $evaluation "_rendered") -}}
{{- $keys := list -}}
{{- $given := dict -}}
{{- $paths := dict -}}
{{- range $store := list "redis" "postgres" -}}
{{- $values := index $evaluation $store -}}
{{- if $values.enabled -}}
{{- $key := printf "%s-password" $store -}}
{{- $keys = append $keys $key -}}
{{- $_ := set $given $key $values.password -}}
{{- $_ := set $paths $key (printf "evaluation.%s.password" $store) -}}
{{- end -}}
{{- end -}}
{{- $secret := include "tavolo.evaluationSecretName" . -}}
{{- $kept := include "tavolo.keptValues" (dict "root" . "secret" $secret "keys" $keys "given" $given) | fromYaml -}}
{{- with $kept.missing -}}
{{- $names := list -}}
{{- range $key := . }}{{ $names = append $names (get $paths $key) }}{{ end -}}
{{- fail (printf "evaluation: Helm sees no cluster here (helm template, helm install --dry-run, Argo CD), so it can neither read back the stores' passwords of Secret %s nor keep new random ones: every render would make others. Give %s (16 or more letters and digits, e.g. `openssl rand -hex 16`), or install with Helm against the cluster, which makes them once and keeps them" $secret (join " and " $names)) -}}
{{- end -}}
{{- $_ := set $evaluation "_rendered" $kept.chosen -}}
{{- end -}}
{{- toYaml (get $evaluation "_rendered") -}}
{{- end -}}

{{/* REDIS_URL of the evaluation Redis. */}}
{{- define "tavolo.evaluationRedisUrl" -}}
{{- $password := get (include "tavolo.evaluationPasswords" . | fromYaml) "redis-password" -}}
{{- printf "redis://:%s@%s:6379/0" $password (include "tavolo.componentName" (dict "root" . "component" "redis")) -}}
{{- end -}}

{{/* DATABASE_URL of the evaluation Postgres. */}}
{{- define "tavolo.evaluationDatabaseUrl" -}}
{{- $password := get (include "tavolo.evaluationPasswords" . | fromYaml) "postgres-password" -}}
{{- printf "postgres://tavolo:%s@%s:5432/tavolo" $password (include "tavolo.componentName" (dict "root" . "component" "postgres")) -}}
{{- end -}}

{{/* The evaluation parts replace what they would otherwise be told: refuse both at once. */}}
{{- define "tavolo.evaluationChecks" -}}
{{- $evaluation := .Values.evaluation -}}
{{- if and $evaluation.redis.enabled (or .Values.redis.url .Values.redis.existingSecret.name) -}}
{{- fail "evaluation.redis: the chart's own Redis replaces redis.url and redis.existingSecret; set one or the other" -}}
{{- end -}}
{{- if $evaluation.postgres.enabled -}}
{{- $db := .Values.database -}}
{{- $given := or $db.url $db.password $db.listenUrl $db.readUrl $db.existingSecret.name -}}
{{- range $name, $value := .Values.config -}}
{{- if and (hasPrefix "DATABASE_" $name) (include "tavolo.isSet" $value) -}}
{{- $given = true -}}
{{- end -}}
{{- end -}}
{{- if $given -}}
{{- fail "evaluation.postgres: the chart's own Postgres replaces database.* and config.DATABASE_*; set one or the other" -}}
{{- end -}}
{{- end -}}
{{- if and $evaluation.devOidc.enabled .Values.oidc.providers -}}
{{- fail "evaluation.devOidc: the development provider is the issuer of the application's default provider; leave oidc.providers empty" -}}
{{- end -}}
{{- end -}}

{{/* The image of the development OIDC provider. */}}
{{- define "tavolo.devOidcImage" -}}
{{- $image := .Values.evaluation.devOidc.image -}}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) -}}
{{- end -}}

{{/* Where the development provider listens, and the issuer it announces (the default
     provider's, services/config.py DEV_ISSUER). */}}
{{- define "tavolo.devOidcPort" -}}8180{{- end -}}
{{- define "tavolo.devOidcIssuer" -}}http://localhost:8180/tavolo{{- end -}}

{{/*
The gateway pod's sidecar with the development provider on: it listens on the pod's localhost
port 8180 and forwards to the provider's Service, so that the gateway reaches the issuer
http://localhost:8180/tavolo at the same URL as a browser through a port-forward
(files/forward.py, run by the application image's Python).
*/}}
{{- define "tavolo.devOidcForwarder" -}}
- name: dev-oidc-forward
  image: {{ include "tavolo.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command:
    - python
    - -c
    - |
      {{- regexReplaceAll "(?m)[ ]+$" (.Files.Get "files/forward.py" | nindent 6) "" }}
    - {{ include "tavolo.devOidcPort" . | quote }}
    - {{ include "tavolo.componentName" (dict "root" . "component" "dev-oidc") }}
    - {{ include "tavolo.devOidcPort" . | quote }}
  resources:
    {{- toYaml .Values.evaluation.devOidc.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: tmp
      mountPath: /tmp
{{- end -}}

{{/* A NetworkPolicy admitting only the release's .callers to .port of an evaluation part. */}}
{{- define "tavolo.evaluationNetworkPolicy" -}}
{{- if .root.Values.networkPolicies.create }}
{{- $root := .root }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
    {{- include "tavolo.notForProductionLabel" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "tavolo.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  ingress:
    - ports:
        - port: {{ .port }}
          protocol: TCP
      from:
        {{- range $caller := .callers }}
        - podSelector:
            matchLabels:
              {{- include "tavolo.selectorLabels" (dict "root" $root "component" $caller) | nindent 14 }}
        {{- end }}
  egress:
    - {}
{{- end }}
{{- end -}}
