{{/* The Deployment API of every cluster the charts target. */}}
{{- define "common.capabilities.deployment.apiVersion" -}}
apps/v1
{{- end -}}

{{/* A value given as YAML text or as a structure, rendered as a template against the chart's context. */}}
{{- define "common.tplvalues.render" -}}
{{- if typeIs "string" .value -}}
{{- tpl .value .context -}}
{{- else -}}
{{- tpl (.value | toYaml) .context -}}
{{- end -}}
{{- end -}}

{{/* imagePullSecrets of the images that name any. */}}
{{- define "common.images.renderPullSecrets" -}}
{{- $secrets := list -}}
{{- range .images -}}
{{- range .pullSecrets -}}
{{- $secrets = append $secrets (ternary . .name (typeIs "string" .)) -}}
{{- end -}}
{{- end -}}
{{- if $secrets }}
imagePullSecrets:
{{- range $secrets }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}
