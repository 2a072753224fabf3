package serve

import (
	"net"
	"net/http"
)

// Server is an HTTP server and the listener it serves on.
type Server struct {
	HTTP     *http.Server
	Listener net.Listener
}

// Servers returns the servers of the API: its routes on lis, within lim's
// connection limits, and, when probes is not nil, the kubelet's probes
// alone on probes, within ProbeConnLimits. Connections refused or closed
// to make room are counted in the API's Metrics.
func (api *API) Servers(lis, probes net.Listener, lim Limits) []Server {
	m := api.Metrics
	l := NewLimitListener(lis, ConnLimits{Total: lim.MaxConnections, PerPeer: lim.MaxConnectionsPerPeer, Name: "connections"}, m.Refused, m.Evicted)
	servers := []Server{{HTTP: NewServer(api.Handler(), l), Listener: l}}
	if probes != nil {
		pl := NewLimitListener(probes, ProbeConnLimits(), m.Refused, m.Evicted)
		servers = append(servers, Server{HTTP: NewProbeServer(api.ProbeHandler(), pl), Listener: pl})
	}
	return servers
}
