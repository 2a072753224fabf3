package deploy

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ControlPlaneCIDRs are the addresses of the API server, as /32 or /128
// prefixes, from the EndpointSlices of the kubernetes Service in namespace
// default: the API server's node proxy reaches the agents from them, so
// they are what the agents' --allowed-cidrs lets in by default.
func ControlPlaneCIDRs(ctx context.Context, cs kubernetes.Interface) ([]string, error) {
	list, err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		return nil, fmt.Errorf("reading the API server's addresses (the EndpointSlices of Service kubernetes in namespace default): %w", err)
	}
	seen := map[netip.Prefix]bool{}
	for _, s := range list.Items {
		if s.AddressType != discoveryv1.AddressTypeIPv4 && s.AddressType != discoveryv1.AddressTypeIPv6 {
			continue
		}
		for _, e := range s.Endpoints {
			for _, a := range e.Addresses {
				ip, err := netip.ParseAddr(a)
				if err != nil {
					continue
				}
				ip = ip.Unmap()
				seen[netip.PrefixFrom(ip, ip.BitLen())] = true
			}
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("reading the API server's addresses: the EndpointSlices of Service kubernetes in namespace default list none")
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p.String())
	}
	sort.Strings(out)
	return out, nil
}

// ParseCIDRs checks a list of CIDRs or addresses, as the agent's
// --allowed-cidrs takes them, naming the flag that gave them.
func ParseCIDRs(flag string, cidrs []string) error {
	for _, s := range cidrs {
		s = strings.TrimSpace(s)
		if _, err := netip.ParsePrefix(s); err == nil {
			continue
		}
		if _, err := netip.ParseAddr(s); err != nil {
			return fmt.Errorf("--%s: %q is neither a CIDR nor an IP address", flag, s)
		}
	}
	return nil
}

// allowedCIDRsArgs is the agent's --allowed-cidrs for cidrs, none for none
// (every peer).
func allowedCIDRsArgs(cidrs []string) []string {
	if len(cidrs) == 0 {
		return nil
	}
	return []string{"--allowed-cidrs=" + strings.Join(cidrs, ",")}
}
