// Replaces plugins/plugins.go of the Prometheus module when promtool and the chart's Prometheus
// image are built (MODULE_FILE_REPLACEMENTS in scripts/tools/lib/go-tool.sh): the chart's scrape config
// discovers targets with kubernetes_sd_configs only, so the other service discoveries (cloud SDKs
// for AWS, Azure, GCE, OpenStack, …) are left out, as Prometheus's own plugins.yml allows. The
// file and HTTP discoveries stay registered by plugins/minimum.go.

package plugins

import (
	// Register kubernetes plugin.
	_ "github.com/prometheus/prometheus/discovery/kubernetes"
)
