{{- define "mojaloop-common.waitForMysqlInitContainer" -}}
{{- end -}}

{{- define "mojaloop-common.httproute" -}}
{{- end -}}
