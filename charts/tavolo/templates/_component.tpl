{{/*
The objects of one component, each behind its toggle. Every helper takes
{"root": $, "component": "<name>"}; the NetworkPolicy also takes "callers", the components
allowed to call it (none for the gateway, which is the entry point).
*/}}

{{- define "tavolo.serviceAccount" -}}
{{- if .root.Values.serviceAccounts.create }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
  {{- with .root.Values.serviceAccounts.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end }}
{{- end -}}

{{/* The probe handler: the gateway's health route, or the standard gRPC health check.
     .service "liveness" asks only whether the process is up (startup, liveness); the default
     "" follows the stores too (readiness): an outage of Redis or Postgres takes the pods out
     of their Service without restarting them. With TLS the kubelet, which can do no TLS, asks
     the plaintext health port (GRPC_HEALTH_PORT) instead of the serving one. */}}
{{- define "tavolo.probeHandler" -}}
{{- if eq .component "gateway" -}}
httpGet:
  path: /api/health
  port: http
{{- else -}}
grpc:
  port: {{ include "tavolo.healthPort" . }}
  {{- with .service }}
  service: {{ . }}
  {{- end }}
{{- end -}}
{{- end -}}

{{- define "tavolo.deployment" -}}
{{- $root := .root -}}
{{- $values := index $root.Values .component -}}
{{- $protocol := ternary "http" "grpc" (eq .component "gateway") }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
spec:
  {{- if not $values.autoscaling.enabled }}
  replicas: {{ $values.replicas }}
  {{- end }}
  revisionHistoryLimit: {{ int $root.Values.revisionHistoryLimit }}
  {{- with $values.strategy | default $root.Values.deploymentStrategy }}
  strategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "tavolo.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "tavolo.labels" . | nindent 8 }}
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Roll the pods when the settings change.
        checksum/config: {{ include "tavolo.configData" $root | sha256sum }}
        checksum/secret: {{ include "tavolo.secretData" $root | sha256sum }}
        {{- with include "tavolo.grpcAuthChecksum" . }}
        # ... and when its token, or a caller the service accepts, changes.
        checksum/grpc-auth: {{ . }}
        {{- end }}
        {{- with merge (deepCopy $values.podAnnotations) $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "tavolo.serviceAccountName" . }}
      automountServiceAccountToken: false
      # Service links would put e.g. DATABASE_PORT=tcp://... in the environment of every pod of a
      # namespace that has a Service named "database"; tavolo reads its settings from variables.
      enableServiceLinks: false
      {{- with $root.Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- $grace := int $values.terminationGracePeriodSeconds }}
      {{- if eq .component "gateway" }}
      {{- /* Enough for its preStop pause, its own pause and closing (gateway.draining.EXIT_SECONDS). */}}
      {{- $grace = max $grace (add (int $values.preStopSeconds) (int (default 0 $root.Values.config.SHUTDOWN_DRAIN_SECONDS)) 20) }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $grace }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- with include "tavolo.podScheduling" $root | trim }}{{ . | nindent 6 }}{{ end }}
      {{- if $values.affinity }}
      affinity:
        {{- toYaml $values.affinity | nindent 8 }}
      {{- else if $root.Values.podAntiAffinity.enabled }}
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: {{ $root.Values.podAntiAffinity.weight }}
              podAffinityTerm:
                topologyKey: {{ $root.Values.podAntiAffinity.topologyKey }}
                labelSelector:
                  matchLabels:
                    {{- include "tavolo.selectorLabels" . | nindent 20 }}
      {{- end }}
      {{- with $root.Values.topologySpread }}
      {{- if .enabled }}
      topologySpreadConstraints:
        - topologyKey: {{ .topologyKey }}
          maxSkew: {{ int .maxSkew }}
          whenUnsatisfiable: {{ .whenUnsatisfiable }}
          labelSelector:
            matchLabels:
              {{- include "tavolo.selectorLabels" $ | nindent 14 }}
          # Counted within one rollout's pods: an old ReplicaSet's do not skew the new one's.
          matchLabelKeys:
            - pod-template-hash
      {{- end }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "tavolo.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: ["serve", {{ .component | quote }}]
          ports:
            - name: {{ $protocol }}
              containerPort: {{ include "tavolo.port" . }}
              protocol: TCP
            {{- if gt (int $root.Values.metrics.port) 0 }}
            {{- if eq (int $root.Values.metrics.port) (int (include "tavolo.port" .)) }}
            {{- fail (printf "metrics.port (%d) must differ from %s.port" (int $root.Values.metrics.port) .component) }}
            {{- end }}
            # /metrics for Prometheus: never in the Service, never through the Ingress.
            - name: metrics
              containerPort: {{ $root.Values.metrics.port }}
              protocol: TCP
            {{- end }}
            {{- if and (ne .component "gateway") $root.Values.grpcAuth.tls.enabled }}
            # Plaintext grpc.health.v1.Health alone, for the kubelet's probes.
            - name: health
              containerPort: {{ int $root.Values.grpcAuth.tls.healthPort }}
              protocol: TCP
            {{- end }}
          {{- include "tavolo.env" (dict "root" $root "component" .component "config" (include "tavolo.fullname" $root) "secret" (include "tavolo.fullname" $root)) | nindent 10 }}
          startupProbe:
            {{- include "tavolo.probeHandler" (merge (dict "service" "liveness") .) | nindent 12 }}
            {{- toYaml $root.Values.probes.startup | nindent 12 }}
          readinessProbe:
            {{- include "tavolo.probeHandler" . | nindent 12 }}
            {{- toYaml $root.Values.probes.readiness | nindent 12 }}
          livenessProbe:
            {{- include "tavolo.probeHandler" (merge (dict "service" "liveness") .) | nindent 12 }}
            {{- toYaml $root.Values.probes.liveness | nindent 12 }}
          {{- if and (eq .component "gateway") (gt (int $values.preStopSeconds) 0) }}
          # The endpoints controller and the ingress stop sending here before SIGTERM comes and
          # the gateway closes its sockets (docs/operations.md, Rollouts). The image's own sleep
          # (Debian's coreutils): Kubernetes' sleep action is off by default before 1.30.
          lifecycle:
            preStop:
              exec:
                command: ["sleep", "{{ int $values.preStopSeconds }}"]
          {{- end }}
          resources:
            {{- toYaml $values.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          {{- include "tavolo.volumeMounts" $root | nindent 10 }}
          {{- with include "tavolo.grpcAuthVolumeMounts" . }}
          {{- . | nindent 12 }}
          {{- end }}
        {{- if and (eq .component "gateway") $root.Values.evaluation.devOidc.enabled }}
        {{- include "tavolo.devOidcForwarder" $root | nindent 8 }}
        {{- end }}
      {{- include "tavolo.volumes" $root | nindent 6 }}
      {{- with include "tavolo.grpcAuthVolumes" . }}
      {{- . | nindent 8 }}
      {{- end }}
{{- end -}}

{{- define "tavolo.service" -}}
{{- $values := index .root.Values .component -}}
{{- $protocol := ternary "http" "grpc" (eq .component "gateway") }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
  {{- with $values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $values.service.type }}
  {{- if eq .component "bots" }}
  {{- /* Headless, as installations have it: Kubernetes cannot give a Service a cluster IP in
       place (the lobby dials <fullname>-bots-replicas). */}}
  clusterIP: None
  {{- end }}
  selector:
    {{- include "tavolo.selectorLabels" . | nindent 4 }}
  ports:
    - name: {{ $protocol }}
      port: {{ include "tavolo.port" . }}
      targetPort: {{ $protocol }}
      protocol: TCP
      appProtocol: {{ $protocol }}
{{- end -}}

{{/*
A gRPC service's headless Service, <fullname>-<component>-replicas: no cluster IP, so its name
resolves to every ready pod (not-ready ones are left out), and the chart's callers, which dial it
(<COMPONENT>_ADDR), spread their calls over them (docs/architecture.md, Balancing). The
component's own Service beside it keeps its cluster IP and its type, for other callers: a
Service cannot be turned headless in place.
*/}}
{{- define "tavolo.replicasService" -}}
{{- $name := include "tavolo.replicasServiceName" . }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "tavolo.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ include "tavolo.port" . }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
{{- end -}}

{{- define "tavolo.podDisruptionBudget" -}}
{{- $pdb := (index .root.Values .component).podDisruptionBudget -}}
{{- if $pdb.enabled }}
{{- $min := include "tavolo.isSet" $pdb.minAvailable -}}
{{- if not (or $min (include "tavolo.isSet" $pdb.maxUnavailable)) -}}
{{- fail (printf "%s.podDisruptionBudget: set maxUnavailable or minAvailable" .component) -}}
{{- end }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
spec:
  {{- if $min }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "tavolo.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{- define "tavolo.horizontalPodAutoscaler" -}}
{{- $hpa := (index .root.Values .component).autoscaling -}}
{{- if $hpa.enabled }}
{{- if not (or $hpa.targetCPUUtilizationPercentage $hpa.targetMemoryUtilizationPercentage) -}}
{{- fail (printf "%s.autoscaling: set targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage" .component) -}}
{{- end }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "tavolo.componentName" . }}
  minReplicas: {{ $hpa.minReplicas }}
  maxReplicas: {{ $hpa.maxReplicas }}
  {{- with $hpa.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  metrics:
    {{- with $hpa.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with $hpa.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
{{- end }}
{{- end -}}

{{/*
Admits, on the serving port, only the pods of .callers in this release, plus
<component>.networkPolicy.extraFrom. With no callers (the gateway) and no extraFrom, any source.
*/}}
{{- define "tavolo.networkPolicy" -}}
{{- if .root.Values.networkPolicies.create }}
{{- $root := .root -}}
{{- $extraFrom := (index $root.Values .component).networkPolicy.extraFrom -}}
{{- $peers := list -}}
{{- range $caller := .callers -}}
{{- $peers = append $peers (dict "podSelector" (dict "matchLabels" (include "tavolo.selectorLabels" (dict "root" $root "component" $caller) | fromYaml))) -}}
{{- end -}}
{{- $peers = concat $peers $extraFrom -}}
{{- if and (eq .component "gateway") $extraFrom $root.Values.helmTest.enabled -}}
{{- $peers = append $peers (dict "podSelector" (dict "matchLabels" (include "tavolo.selectorLabels" (dict "root" $root "component" "test") | fromYaml))) -}}
{{- end }}
{{- $scrapers := $root.Values.metrics.networkPolicy.from -}}
{{- $scraped := gt (int $root.Values.metrics.port) 0 }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "tavolo.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  ingress:
    - ports:
        - port: {{ include "tavolo.port" . }}
          protocol: TCP
      {{- with $peers }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- if $scraped }}
    # Prometheus, on the metrics port only.
    - ports:
        - port: {{ $root.Values.metrics.port }}
          protocol: TCP
      {{- with $scrapers }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if and $root.Values.helmTest.enabled (ne .component "gateway") }}
    # `helm test` (templates/tests/test-health.yaml), on the health port only.
    - ports:
        - port: {{ include "tavolo.healthPort" . }}
          protocol: TCP
      from:
        - podSelector:
            matchLabels:
              {{- include "tavolo.selectorLabels" (dict "root" $root "component" "test") | nindent 14 }}
    {{- end }}
  # Redis, Postgres, the OIDC providers and the collector live outside the cluster's pods.
  egress:
    - {}
{{- end }}
{{- end -}}

{{/*
What Prometheus scrapes (prometheus-operator): each component's pods at /metrics on their
metrics port, which no Service exposes; a PodMonitor also scrapes a pod a store outage took out
of its Service.
*/}}
{{- define "tavolo.monitor" -}}
{{- $root := .root -}}
{{- $monitor := $root.Values.metrics.serviceMonitor -}}
{{- if and $monitor.enabled (gt (int $root.Values.metrics.port) 0) }}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata:
  name: {{ include "tavolo.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
    {{- with $monitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "tavolo.selectorLabels" . | nindent 6 }}
  namespaceSelector:
    matchNames:
      - {{ $root.Release.Namespace }}
  podMetricsEndpoints:
    - port: metrics
      path: /metrics
      {{- with $monitor.interval }}
      interval: {{ . }}
      {{- end }}
      {{- with $monitor.scrapeTimeout }}
      scrapeTimeout: {{ . }}
      {{- end }}
{{- end }}
{{- end -}}

{{/*
The component's certificate, issued by cert-manager into its TLS Secret when
grpcAuth.tls.certManager.issuerRef names an issuer: for serving (clients dial the Service's
name) and for calling (the services know the caller by <service>.<namespace>.svc, its common
name is the component's).
*/}}
{{- define "tavolo.certificate" -}}
{{- $root := .root -}}
{{- $tls := $root.Values.grpcAuth.tls -}}
{{- if and $tls.enabled $tls.certManager.issuerRef.name }}
{{- $service := include "tavolo.componentName" . }}
{{- $manager := $tls.certManager }}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ $service }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "tavolo.labels" . | nindent 4 }}
spec:
  secretName: {{ include "tavolo.grpcTlsSecretName" . }}
  secretTemplate:
    labels:
      {{- include "tavolo.labels" . | nindent 6 }}
  commonName: {{ .component }}
  dnsNames:
    - {{ $service }}
    - {{ $service }}.{{ $root.Release.Namespace }}
    - {{ include "tavolo.grpcCertificateName" . }}
  usages:
    - server auth
    - client auth
    - digital signature
    {{- if eq $manager.privateKey.algorithm "RSA" }}
    - key encipherment
    {{- end }}
  duration: {{ $manager.duration }}
  renewBefore: {{ $manager.renewBefore }}
  privateKey:
    algorithm: {{ $manager.privateKey.algorithm }}
    size: {{ $manager.privateKey.size }}
    rotationPolicy: Always
  issuerRef:
    {{- toYaml $manager.issuerRef | nindent 4 }}
{{- end }}
{{- end -}}
