{{/*
Secret values the chart makes itself and keeps across upgrades (the gRPC tokens, the evaluation
stores' passwords). Every render of the same values must give the same manifests: GitOps tools
(Argo CD, Flux's offline renders) render with `helm template`, and a value made anew on each
render would roll every pod on every sync. So the chart makes a random value only where it can
keep it: on an install or upgrade that sees the cluster, which reads it back on the next one.
*/}}

{{/*
Whether Helm sees the cluster it renders for: `lookup` answers nothing without one (helm
template, helm install --dry-run, Argo CD). The probe lists the release namespace's Secrets,
which whoever installs the chart may do (Helm keeps its releases there); a cluster-scoped probe
such as kube-system's Namespace would fail for installers limited to their namespace. A
namespace that does not exist yet still answers an (empty) list.
*/}}
{{- define "tavolo.clusterVisible" -}}
{{- if lookup "v1" "Secret" .Release.Namespace "" -}}true{{- end -}}
{{- end -}}

{{/*
The values of a kept Secret, as YAML {chosen: {key: value}, missing: [key...]}. Takes
{"root": $, "secret": <its name>, "keys": [...], "given": {key: value}}. For each key: the given
value when set; else the one already in the Secret (lookup, on install and upgrade); else, when
Helm sees the cluster, a new random one (64 letters and digits, from a cryptographic source);
else (an offline render) none: the key is listed as missing, and the caller fails, saying how
to give it.
*/}}
{{- define "tavolo.keptValues" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace .secret | default dict -}}
{{- $previous := get $existing "data" | default dict -}}
{{- $visible := "" -}}
{{- $chosen := dict -}}
{{- $missing := list -}}
{{- range $key := .keys -}}
{{- $given := get $.given $key -}}
{{- if $given -}}
{{- $_ := set $chosen $key $given -}}
{{- else if get $previous $key -}}
{{- $_ := set $chosen $key (get $previous $key | b64dec) -}}
{{- else -}}
{{- if not $visible -}}
{{- $visible = include "tavolo.clusterVisible" $.root | default "no" -}}
{{- end -}}
{{- if eq $visible "true" -}}
{{- $_ := set $chosen $key (randAlphaNum 64) -}}
{{- else -}}
{{- $missing = append $missing $key -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "chosen" $chosen "missing" $missing) -}}
{{- end -}}
