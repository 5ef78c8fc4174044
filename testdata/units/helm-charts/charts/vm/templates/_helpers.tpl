{{- define "vm.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
