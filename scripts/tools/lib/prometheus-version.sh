# The one pinned Prometheus release that promtool (install-promtool.sh) and the chart's Prometheus
# image (scripts/images/build-prometheus.sh) are built from, with the same service discoveries, so
# the image build finds nearly every package compiled by the promtool build. Source it after
# go-tool.sh; do not run it.
prometheus_module=github.com/prometheus/prometheus
# Prometheus v2.55.1 is tagged v0.55.1 in its Go module.
prometheus_version=v0.55.1
prometheus_ldflags="-s -w -X github.com/prometheus/common/version.Version=2.${prometheus_version#v0.}"
# Only the service discoveries the chart's config uses (plugin-lists/prometheus-plugins.go says which),
# as MODULE_FILE_REPLACEMENTS for go_build_in_shim_module.
prometheus_plugins="plugins/plugins.go=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/plugin-lists/prometheus-plugins.go"
