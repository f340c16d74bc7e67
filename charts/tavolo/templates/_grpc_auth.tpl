{{/*
Who may call the gRPC services (docs/grpc-auth.md): each component's bearer token (a Secret,
one key per component), the callers file every gRPC service reads (a ConfigMap holding no
secret: token hashes and certificate names), and the components' TLS certificates.
*/}}

{{/* The components that call others (each has a token and, with TLS, a certificate). */}}
{{- define "tavolo.grpcCallers" -}}
{{- toJson (list "gateway" "lobby" "game" "deadlines" "stats" "bots") -}}
{{- end -}}

{{/* Whether the services check their callers: with tokens or TLS on, a callers file. */}}
{{- define "tavolo.grpcAuthEnabled" -}}
{{- if or .Values.grpcAuth.tokens.enabled .Values.grpcAuth.tls.enabled -}}true{{- end -}}
{{- end -}}

{{/* The Secret holding the tokens: grpcAuth.tokens.existingSecret, or the chart's own. */}}
{{- define "tavolo.grpcTokensSecretName" -}}
{{- .Values.grpcAuth.tokens.existingSecret | default (printf "%s-grpc-tokens" (include "tavolo.fullname" .)) -}}
{{- end -}}

{{/* The ConfigMap holding the callers file. */}}
{{- define "tavolo.grpcCallersConfigMapName" -}}
{{- printf "%s-grpc-callers" (include "tavolo.fullname" .) -}}
{{- end -}}

{{/* A component's TLS Secret: grpcAuth.tls.secretNames.<component>, or <fullname>-<component>-tls. */}}
{{- define "tavolo.grpcTlsSecretName" -}}
{{- index .root.Values.grpcAuth.tls.secretNames .component | default (printf "%s-tls" (include "tavolo.componentName" .)) -}}
{{- end -}}

{{/* The name a component's certificate proves, which the callers file knows it by and its callers
     expect (<COMPONENT>_TLS_SERVER_NAME): its Service's name in the cluster,
     <fullname>-<component>.<namespace>.svc (unique in the cluster, so a certificate of another
     release or namespace from the same CA is not taken for it). */}}
{{- define "tavolo.grpcCertificateName" -}}
{{- printf "%s.%s.svc" (include "tavolo.componentName" .) .root.Release.Namespace -}}
{{- end -}}

{{/*
The tokens the chart keeps in its own Secret, as YAML {component: token}: for each component
grpcAuth.tokens.values.<component> when given, else the token already in the release's Secret
(Helm's `lookup`, on install and upgrade), else, on an install that sees the cluster, a new random
one (_kept.tpl). An offline render (helm template, --dry-run, Argo CD) that is given neither the
tokens nor an existingSecret fails, saying how to give them: random tokens there would differ on
every render and roll every pod on every sync. They are chosen once per rendering and kept in
.Values for the rest of it, so that the Secret, the callers file and the pods' checksums agree.
*/}}
{{- define "tavolo.grpcTokens" -}}
{{- $tokens := .Values.grpcAuth.tokens -}}
{{- if not (hasKey $tokens "_rendered") -}}
{{- $secret := include "tavolo.grpcTokensSecretName" . -}}
{{- $kept := include "tavolo.keptValues" (dict "root" . "secret" $secret "keys" (include "tavolo.grpcCallers" . | fromJsonArray) "given" $tokens.values) | fromYaml -}}
{{- with $kept.missing -}}
{{- fail (printf "grpcAuth.tokens: Helm sees no cluster here (helm template, helm install --dry-run, Argo CD), so it can neither read back the tokens of Secret %s nor keep new random ones: every render would make others and restart every pod. Give the tokens of %s: set grpcAuth.tokens.values.<component> (16 or more printable characters each, e.g. `openssl rand -hex 32`), or grpcAuth.tokens.existingSecret with grpcAuth.tokens.sha256.<component> (keeps them out of your values); or install with Helm against the cluster, which makes them once and keeps them" $secret (join ", " .)) -}}
{{- end -}}
{{- $_ := set $tokens "_rendered" $kept.chosen -}}
{{- end -}}
{{- toYaml (get $tokens "_rendered") -}}
{{- end -}}

{{/*
The hex SHA-256 of each component's token, as YAML {component: sha256}: given with an
existingSecret (the chart cannot read a Secret when it renders without a cluster, and must render
the same callers file then), else of the chart's own tokens. When Helm can read the existing
Secret (install, upgrade), the given hashes are checked against it.
*/}}
{{- define "tavolo.grpcTokenHashes" -}}
{{- $tokens := .Values.grpcAuth.tokens -}}
{{- $hashes := dict -}}
{{- if $tokens.existingSecret -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $tokens.existingSecret | default dict -}}
{{- $data := get $existing "data" | default dict -}}
{{- range $component := include "tavolo.grpcCallers" . | fromJsonArray -}}
{{- $hash := index $tokens.sha256 $component | lower -}}
{{- if not $hash -}}
{{- fail (printf "grpcAuth.tokens.sha256.%s: the hex SHA-256 of the %s token of Secret %s is needed with grpcAuth.tokens.existingSecret (printf %%s \"$TOKEN\" | sha256sum)" $component $component $tokens.existingSecret) -}}
{{- end -}}
{{- if $existing -}}
{{- if not (get $data $component) -}}
{{- fail (printf "grpcAuth.tokens.existingSecret: Secret %s has no key %s" $tokens.existingSecret $component) -}}
{{- end -}}
{{- if ne (get $data $component | b64dec | sha256sum) $hash -}}
{{- fail (printf "grpcAuth.tokens.sha256.%s is not the SHA-256 of the %s token in Secret %s" $component $component $tokens.existingSecret) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $hashes $component $hash -}}
{{- end -}}
{{- else -}}
{{- range $component, $token := include "tavolo.grpcTokens" . | fromYaml -}}
{{- $_ := set $hashes $component ($token | sha256sum) -}}
{{- end -}}
{{- end -}}
{{- toYaml $hashes -}}
{{- end -}}

{{/*
The callers file (GRPC_CALLERS_FILE), as YAML: the built-in callers, each with its token's hash
and, with TLS, its certificate's name; then grpcAuth.callers. Empty when the services check no
caller (tokens and TLS both off).
*/}}
{{- define "tavolo.grpcCallersFile" -}}
{{- if include "tavolo.grpcAuthEnabled" . -}}
{{- $root := . -}}
{{- $auth := .Values.grpcAuth -}}
{{- $hashes := dict -}}
{{- if $auth.tokens.enabled -}}
{{- $hashes = include "tavolo.grpcTokenHashes" . | fromYaml -}}
{{- end -}}
{{- $builtIn := include "tavolo.grpcCallers" . | fromJsonArray -}}
{{- $callers := list -}}
{{- range $component := $builtIn -}}
{{- $caller := dict "name" $component -}}
{{- if $auth.tokens.enabled -}}
{{- $_ := set $caller "token_sha256" (get $hashes $component) -}}
{{- end -}}
{{- if $auth.tls.enabled -}}
{{- $_ := set $caller "certificate" (include "tavolo.grpcCertificateName" (dict "root" $root "component" $component)) -}}
{{- end -}}
{{- $callers = append $callers $caller -}}
{{- end -}}
{{- $seen := dict -}}
{{- range $index, $extra := $auth.callers -}}
{{- if has $extra.name $builtIn -}}
{{- fail (printf "grpcAuth.callers[%d]: %q is a built-in caller's name" $index $extra.name) -}}
{{- end -}}
{{- if hasKey $seen $extra.name -}}
{{- fail (printf "grpcAuth.callers: the name %q is used twice" $extra.name) -}}
{{- end -}}
{{- $_ := set $seen $extra.name true -}}
{{- $caller := dict "name" $extra.name -}}
{{- with $extra.tokenSha256 -}}
{{- $_ := set $caller "token_sha256" (lower .) -}}
{{- end -}}
{{- with $extra.certificate -}}
{{- $_ := set $caller "certificate" . -}}
{{- end -}}
{{- with $extra.methods -}}
{{- $_ := set $caller "methods" . -}}
{{- end -}}
{{- $callers = append $callers $caller -}}
{{- end -}}
{{- /* The services refuse a token or a certificate name that two callers share. */ -}}
{{- $owners := dict -}}
{{- range $caller := $callers -}}
{{- range $field := list "token_sha256" "certificate" -}}
{{- with get $caller $field -}}
{{- $key := printf "%s %s" $field . -}}
{{- if hasKey $owners $key -}}
{{- fail (printf "grpcAuth.callers: %s and %s have the same %s" (get $owners $key) $caller.name (ternary "token (tokenSha256)" "certificate" (eq $field "token_sha256"))) -}}
{{- end -}}
{{- $_ := set $owners $key $caller.name -}}
{{- end -}}
{{- end -}}
{{- end -}}
callers:
{{- range $caller := $callers }}
  - name: {{ toJson $caller.name }}
    {{- with $caller.token_sha256 }}
    token_sha256: {{ . }}
    {{- end }}
    {{- with $caller.certificate }}
    certificate: {{ toJson . }}
    {{- end }}
    {{- with $caller.methods }}
    methods:
      {{- range . }}
      - {{ toJson . }}
      {{- end }}
    {{- end }}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
What rolls a component's pods, which read their credentials at start: for a gRPC service the
callers file (which holds its own token's hash too), for the gateway its own token's hash and
certificate name. Empty with tokens and TLS off.
*/}}
{{- define "tavolo.grpcAuthChecksum" -}}
{{- $file := include "tavolo.grpcCallersFile" .root -}}
{{- if $file -}}
{{- if eq .component "gateway" -}}
{{- $own := dict -}}
{{- range $caller := (fromYaml $file).callers -}}
{{- if eq $caller.name "gateway" -}}{{- $own = $caller -}}{{- end -}}
{{- end -}}
{{- toJson $own | sha256sum -}}
{{- else -}}
{{- $file | sha256sum -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Checks of grpcAuth made once per render, besides those of the callers file: values that would
be silently ignored, or that would leave the pods waiting for a Secret nobody makes.
*/}}
{{- define "tavolo.grpcAuthChecks" -}}
{{- $root := . -}}
{{- $auth := .Values.grpcAuth -}}
{{- $given := list -}}
{{- $hashed := list -}}
{{- range $component := include "tavolo.grpcCallers" . | fromJsonArray -}}
{{- if index $auth.tokens.values $component -}}{{- $given = append $given $component -}}{{- end -}}
{{- if index $auth.tokens.sha256 $component -}}{{- $hashed = append $hashed $component -}}{{- end -}}
{{- end -}}
{{- if and $auth.tokens.existingSecret $given -}}
{{- fail (printf "grpcAuth.tokens: set existingSecret or values (%s), not both" (join ", " $given)) -}}
{{- end -}}
{{- if and $hashed (not $auth.tokens.existingSecret) -}}
{{- fail (printf "grpcAuth.tokens.sha256 (%s) is only read with existingSecret: the chart hashes the tokens it keeps itself" (join ", " $hashed)) -}}
{{- end -}}
{{- if and $auth.callers (not (include "tavolo.grpcAuthEnabled" .)) -}}
{{- fail "grpcAuth.callers: with grpcAuth.tokens and grpcAuth.tls both off the services check no caller; turn one on" -}}
{{- end -}}
{{- if $auth.tls.enabled -}}
{{- if not $auth.tls.certManager.issuerRef.name -}}
{{- range $component := include "tavolo.grpcCallers" . | fromJsonArray -}}
{{- if not (index $auth.tls.secretNames $component) -}}
{{- fail (printf "grpcAuth.tls.secretNames.%s: name the TLS Secret of each component, or set grpcAuth.tls.certManager.issuerRef for cert-manager to make them" $component) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $health := int $auth.tls.healthPort -}}
{{- range $component := list "lobby" "game" "deadlines" "stats" "bots" -}}
{{- if eq $health (int (index $root.Values $component).port) -}}
{{- fail (printf "grpcAuth.tls.healthPort (%d) must differ from %s.port" $health $component) -}}
{{- end -}}
{{- end -}}
{{- if eq $health (int $root.Values.metrics.port) -}}
{{- fail (printf "grpcAuth.tls.healthPort (%d) must differ from metrics.port" $health) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The GRPC_* (and, with TLS, <COMPONENT>_TLS_SERVER_NAME) environment of a component's container,
     as a YAML list of EnvVars. */}}
{{- define "tavolo.grpcAuthEnv" -}}
{{- $auth := .root.Values.grpcAuth -}}
{{- $dir := "/etc/tavolo/grpc" -}}
{{- $env := list -}}
{{- $service := ne .component "gateway" -}}
{{- if and $service (include "tavolo.grpcAuthEnabled" .root) -}}
{{- $env = append $env (dict "name" "GRPC_CALLERS_FILE" "value" (printf "%s/callers.yaml" $dir)) -}}
{{- end -}}
{{- if $auth.tokens.enabled -}}
{{- $env = append $env (dict "name" "GRPC_TOKEN_FILE" "value" (printf "%s/token" $dir)) -}}
{{- end -}}
{{- if $auth.tls.enabled -}}
{{- $env = append $env (dict "name" "GRPC_TLS_CERT_FILE" "value" (printf "%s/tls/tls.crt" $dir)) -}}
{{- $env = append $env (dict "name" "GRPC_TLS_KEY_FILE" "value" (printf "%s/tls/tls.key" $dir)) -}}
{{- $env = append $env (dict "name" "GRPC_TLS_CA_FILE" "value" (printf "%s/tls/ca.crt" $dir)) -}}
{{- if $service -}}
{{- $env = append $env (dict "name" "GRPC_HEALTH_PORT" "value" (toString (int $auth.tls.healthPort))) -}}
{{- end -}}
{{- /* The callers dial each service's headless Service (tavolo.addr), a name its certificate
     need not hold: they expect the name it has always held, its certificate name. Not for a
     service at an address of the operator's (config.<COMPONENT>_ADDR), which must then dial a
     name its certificates carry. */ -}}
{{- range $component := list "lobby" "game" "deadlines" "stats" "bots" -}}
{{- $ctx := dict "root" $.root "component" $component -}}
{{- if not (include "tavolo.isSet" (index $.root.Values.config (include "tavolo.addrVariable" $ctx))) -}}
{{- $env = append $env (dict "name" (printf "%s_TLS_SERVER_NAME" (upper $component)) "value" (include "tavolo.grpcCertificateName" $ctx)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/*
The volume of a component's gRPC credentials, as a YAML list of at most one Volume: a projected
volume of the callers file (the gRPC services), the component's own token (only its key of the
Secret) and its TLS Secret. Read-only for the group (fsGroup) when the pods have one.
*/}}
{{- define "tavolo.grpcAuthVolumes" -}}
{{- $root := .root -}}
{{- $auth := $root.Values.grpcAuth -}}
{{- $sources := list -}}
{{- if and (ne .component "gateway") (include "tavolo.grpcAuthEnabled" $root) -}}
{{- $sources = append $sources (dict "configMap" (dict "name" (include "tavolo.grpcCallersConfigMapName" $root) "items" (list (dict "key" "callers.yaml" "path" "callers.yaml")))) -}}
{{- end -}}
{{- if $auth.tokens.enabled -}}
{{- $sources = append $sources (dict "secret" (dict "name" (include "tavolo.grpcTokensSecretName" $root) "items" (list (dict "key" .component "path" "token")))) -}}
{{- end -}}
{{- if $auth.tls.enabled -}}
{{- $items := list -}}
{{- range $key := list "tls.crt" "tls.key" "ca.crt" -}}
{{- $items = append $items (dict "key" $key "path" (printf "tls/%s" $key)) -}}
{{- end -}}
{{- $sources = append $sources (dict "secret" (dict "name" (include "tavolo.grpcTlsSecretName" .) "items" $items)) -}}
{{- end -}}
{{- if $sources -}}
{{- $projected := dict "sources" $sources -}}
{{- if hasKey $root.Values.podSecurityContext "fsGroup" -}}
{{- $_ := set $projected "defaultMode" 288 -}}{{- /* 0440 */ -}}
{{- end -}}
{{- toYaml (list (dict "name" "grpc-auth" "projected" $projected)) -}}
{{- end -}}
{{- end -}}

{{/* The mount of that volume, as a YAML list of at most one VolumeMount. */}}
{{- define "tavolo.grpcAuthVolumeMounts" -}}
{{- if include "tavolo.grpcAuthVolumes" . -}}
{{- toYaml (list (dict "name" "grpc-auth" "mountPath" "/etc/tavolo/grpc" "readOnly" true)) -}}
{{- end -}}
{{- end -}}
