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

{{/* Who calls each gRPC service (services/rpc/callers.py, BUILT_IN_METHODS): the components
     whose tokens a service mounts when it hashes them itself. */}}
{{- define "tavolo.grpcCallersOf" -}}
{{- $of := dict "lobby" (list "gateway" "stats") "game" (list "gateway" "lobby" "deadlines" "bots") "deadlines" (list "game") "stats" (list "gateway" "game") "bots" (list "lobby") -}}
{{- toJson (get $of .) -}}
{{- end -}}

{{/* Where a service mounts its callers' tokens (tokensFromSecret). */}}
{{- define "tavolo.grpcCallerTokensDir" -}}/etc/tavolo/grpc/callers{{- end -}}

{{/*
The tokens the chart keeps in its own Secret, as YAML {component: token}: for each component
grpcAuth.tokens.values.<component> when given, else the token already in the release's Secret
(Helm's `lookup`, on install and upgrade), else, on an install that sees the cluster, a new random
one (_kept.tpl). An offline render (helm template, --dry-run, Argo CD) that is given none of the
tokens renders no Secret and no hash: it refers to the Secret <fullname>-grpc-tokens, which the
operator creates, and the services hash the mounted tokens themselves (tavolo.grpcTokensFromSecret).
Given some but not all of them, it fails: random tokens there would differ on every render and roll
every pod on every sync. They are chosen once per rendering and kept in .Values for the rest of it,
so that the Secret, the callers file and the pods' checksums agree. Empty with an existingSecret.
*/}}
{{- define "tavolo.grpcTokens" -}}
{{- $tokens := .Values.grpcAuth.tokens -}}
{{- if not (hasKey $tokens "_rendered") -}}
{{- $chosen := dict -}}
{{- if not $tokens.existingSecret -}}
{{- $secret := include "tavolo.grpcTokensSecretName" . -}}
{{- $kept := include "tavolo.keptValues" (dict "root" . "secret" $secret "keys" (include "tavolo.grpcCallers" . | fromJsonArray) "given" $tokens.values) | fromYaml -}}
{{- if and $kept.missing $kept.chosen -}}
{{- fail (printf "grpcAuth.tokens: Helm sees no cluster here (helm template, helm install --dry-run, Argo CD), so it can neither read back the tokens of Secret %s nor keep new random ones: every render would make others and restart every pod. Give all the tokens in grpcAuth.tokens.values or none (then create Secret %s yourself, or set grpcAuth.tokens.existingSecret); missing: %s" $secret $secret (join ", " $kept.missing)) -}}
{{- end -}}
{{- $chosen = $kept.chosen -}}
{{- end -}}
{{- $_ := set $tokens "_rendered" $chosen -}}
{{- end -}}
{{- with get $tokens "_rendered" }}{{ toYaml . }}{{ end -}}
{{- end -}}

{{/*
Whether the tokens come from a Secret the chart does not render (grpcAuth.tokens.existingSecret,
or an offline render given no token): the chart then knows no token, the callers file names the
mounted token files (each service's callers' keys, and their optional `<component>.second` key
for a rotation) and the services hash them at start.
*/}}
{{- define "tavolo.grpcTokensFromSecret" -}}
{{- if and .Values.grpcAuth.tokens.enabled (not (include "tavolo.grpcTokens" .)) -}}true{{- end -}}
{{- end -}}

{{/*
The hex SHA-256 of each of the chart's own tokens, as YAML {component: sha256}.
*/}}
{{- define "tavolo.grpcTokenHashes" -}}
{{- $hashes := dict -}}
{{- range $component, $token := include "tavolo.grpcTokens" . | fromYaml -}}
{{- $_ := set $hashes $component ($token | sha256sum) -}}
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
{{- $fromSecret := include "tavolo.grpcTokensFromSecret" . -}}
{{- if and $auth.tokens.enabled (not $fromSecret) -}}
{{- $hashes = include "tavolo.grpcTokenHashes" . | fromYaml -}}
{{- end -}}
{{- $builtIn := include "tavolo.grpcCallers" . | fromJsonArray -}}
{{- $callers := list -}}
{{- range $component := $builtIn -}}
{{- $caller := dict "name" $component -}}
{{- if $fromSecret -}}
{{- $dir := include "tavolo.grpcCallerTokensDir" $root -}}
{{- $_ := set $caller "token_files" (list (printf "%s/%s" $dir $component) (printf "%s/%s.second" $dir $component)) -}}
{{- else if $auth.tokens.enabled -}}
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
{{- if kindIs "slice" . -}}
{{- $lowered := list -}}
{{- range . }}{{ $lowered = append $lowered (lower .) }}{{ end -}}
{{- $_ := set $caller "token_sha256" $lowered -}}
{{- else -}}
{{- $_ := set $caller "token_sha256" (lower .) -}}
{{- end -}}
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
{{- $values := get $caller $field -}}
{{- if not (kindIs "slice" $values) }}{{ $values = ternary (list $values) (list) (not (empty $values)) }}{{ end -}}
{{- range $values -}}
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
    token_sha256: {{ if kindIs "slice" . }}{{ toJson . }}{{ else }}{{ . }}{{ end }}
    {{- end }}
    {{- with $caller.token_files }}
    token_files: {{ toJson . }}
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
{{- range $component := include "tavolo.grpcCallers" . | fromJsonArray -}}
{{- if index $auth.tokens.values $component -}}{{- $given = append $given $component -}}{{- end -}}
{{- end -}}
{{- if and $auth.tokens.existingSecret $given -}}
{{- fail (printf "grpcAuth.tokens: set existingSecret or values (%s), not both" (join ", " $given)) -}}
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
{{- $secret := include "tavolo.grpcTokensSecretName" $root -}}
{{- $items := list (dict "key" .component "path" "token") -}}
{{- $seconds := list -}}
{{- if and (ne .component "gateway") (include "tavolo.grpcTokensFromSecret" $root) -}}
{{- /* The service hashes its callers' tokens itself: only theirs, and their second ones while
     a rotation has them (an optional source: a missing key is no error). */ -}}
{{- range $caller := include "tavolo.grpcCallersOf" .component | fromJsonArray -}}
{{- $items = append $items (dict "key" $caller "path" (printf "callers/%s" $caller)) -}}
{{- $seconds = append $seconds (dict "key" (printf "%s.second" $caller) "path" (printf "callers/%s.second" $caller)) -}}
{{- end -}}
{{- end -}}
{{- $sources = append $sources (dict "secret" (dict "name" $secret "items" $items)) -}}
{{- with $seconds -}}
{{- $sources = append $sources (dict "secret" (dict "name" $secret "items" . "optional" true)) -}}
{{- end -}}
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
