package deploy

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

// TestControlPlaneCIDRs reads the API server's addresses from the
// EndpointSlices of Service kubernetes, each as a single-address prefix,
// and nothing from other Services' slices.
func TestControlPlaneCIDRs(t *testing.T) {
	slice := func(name, service string, t discoveryv1.AddressType, addrs ...string) runtime.Object {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
			AddressType: t,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: addrs}},
		}
	}
	cs := fake.NewClientset(
		slice("kubernetes", "kubernetes", discoveryv1.AddressTypeIPv4, "10.0.0.2", "10.0.0.1"),
		slice("kubernetes-v6", "kubernetes", discoveryv1.AddressTypeIPv6, "fd00::1", "::ffff:10.0.0.1"),
		slice("other", "other", discoveryv1.AddressTypeIPv4, "10.9.9.9"),
	)
	got, err := ControlPlaneCIDRs(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"10.0.0.1/32", "10.0.0.2/32", "fd00::1/128"}; !cmp.Equal(got, want) {
		t.Errorf("control plane %v, want %v", got, want)
	}
	if _, err := ControlPlaneCIDRs(context.Background(), fake.NewClientset()); err == nil || !strings.Contains(err.Error(), "list none") {
		t.Errorf("no slices: error %v", err)
	}
}

func TestParseCIDRs(t *testing.T) {
	if err := ParseCIDRs("allowed-cidrs", []string{"0.0.0.0/0", "::/0", "10.0.0.1", " fd00::1 "}); err != nil {
		t.Error(err)
	}
	if err := ParseCIDRs("allowed-cidrs", []string{"10.0.0.1", "example.com"}); err == nil || err.Error() != `--allowed-cidrs: "example.com" is neither a CIDR nor an IP address` {
		t.Errorf("error %v", err)
	}
}
