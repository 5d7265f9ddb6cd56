# The gateways Varnish fetches from: here the chart's Service (one backend, Kubernetes balances);
# list pods or replicas as further backends to balance in Varnish instead.
backend gateway_service {
    .host = "catalog-gateway";
    .port = "4000";
}

sub vcl_init {
    new gateways = directors.round_robin();
    gateways.add_backend(gateway_service);
}
