package apisource

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// APIClient is what the API source asks of the API server: the lists and
// watches of one core/v1 resource ("pods" or "nodes") across all
// namespaces.
type APIClient interface {
	List(ctx context.Context, resource string, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, resource string, opts metav1.ListOptions) (watch.Interface, error)
}

// restAPIClient is an APIClient on a REST client for core/v1, the client
// the kubelet's own pod source lists and watches through. Its scheme knows
// only core/v1, so that the agent does not carry, and initialise, every API
// group client-go knows.
type restAPIClient struct {
	rest rest.Interface
}

// newRESTAPIClient returns an APIClient for the API server of cfg.
func newRESTAPIClient(cfg *rest.Config) (*restAPIClient, error) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("registering core/v1: %w", err)
	}
	c := rest.CopyConfig(cfg)
	c.APIPath = "/api"
	c.GroupVersion = &v1.SchemeGroupVersion
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return &restAPIClient{rest: rc}, nil
}

// List lists the resource in every namespace.
func (c *restAPIClient) List(ctx context.Context, resource string, opts metav1.ListOptions) (runtime.Object, error) {
	return c.rest.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Get()
}

// Watch watches the resource in every namespace; the request ends after
// opts.TimeoutSeconds when set, as a typed client's watch (the kubelet's
// node informer) does. The kubelet's pod list-watch sets no client-side
// timeout, but the server ends the watch at that time anyway.
func (c *restAPIClient) Watch(ctx context.Context, resource string, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	req := c.rest.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec)
	if opts.TimeoutSeconds != nil {
		req = req.Timeout(time.Duration(*opts.TimeoutSeconds) * time.Second)
	}
	return req.Watch(ctx)
}
