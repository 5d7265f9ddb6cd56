vcl 4.1;
# Varnish (with varnish-modules' xkey) in front of catalog-gateway: caches the catalog's reads for
# their s-maxage and lets the gateway purge them by tag on every change (gateway/README.md,
# "Consistency"). Point the gateway at it with EDGE_PURGE_VARNISH_URLS=http://<varnish>:<port>/.
# The gateways are defined in backends.vcl (found on vcl_path): a director named `gateways`.

import directors;
import std;
import xkey;

include "backends.vcl";

# Who may purge: the gateways' pod network. Anyone else gets a 403.
acl purgers {
    "127.0.0.1";
    "::1";
    "10.0.0.0"/8;
    "172.16.0.0"/12;
    "192.168.0.0"/16;
}

sub vcl_recv {
    set req.backend_hint = gateways.backend();
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "PURGE needs an xkey-purge header"));
        }
        # A hard purge: the objects are gone. xkey.softpurge would keep them for grace, and
        # stale-while-revalidate would then serve a purged object once more.
        set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged " + req.http.n-gone + " objects"));
    }
    # Everything else as Varnish's built-in VCL has it: GET and HEAD are cached, other methods
    # (GraphQL POSTs, writes) and requests with Authorization or Cookie go to the gateways.
}

sub vcl_backend_response {
    # xkey indexes the `xkey` header: the gateway's tags are in Surrogate-Key (space-separated).
    # The TTL is the response's s-maxage, its grace its stale-while-revalidate (Varnish reads both).
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }
}

sub vcl_deliver {
    # Tags are for this cache, not for browsers.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
    unset resp.http.Cache-Tag;
    if (obj.hits > 0) {
        set resp.http.x-cache = "hit";
    } else {
        set resp.http.x-cache = "miss";
    }
}
