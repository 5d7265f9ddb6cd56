// Replaces core/plugin/zplugin.go of the CoreDNS module when it is built
// (scripts/tools/install-coredns.sh): the real-cluster test's Corefile
// (charts/test/support/real-cluster/node-config.ts) uses only these plugins, so the others and
// their SDKs (cloud DNS providers, etcd, tracing) are left out, as CoreDNS's plugin.cfg allows.

package plugin

import (
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)
