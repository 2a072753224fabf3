package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	utilio "k8s.io/utils/io"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// DefaultHTTPCheckFrequency is the kubelet's default httpCheckFrequency, the
// period between two fetches of the static pod URL.
const DefaultHTTPCheckFrequency = 20 * time.Second

// DefaultURLTimeout is the kubelet's timeout for one fetch of the URL.
const DefaultURLTimeout = 10 * time.Second

// URLOptions configures a URLSource.
type URLOptions struct {
	// URL is the static pod URL (kubelet staticPodURL). It enters the UIDs.
	URL string
	// Header is sent with every request (kubelet staticPodURLHeader).
	Header http.Header
	// NodeName is the kubelet's node name, as given.
	NodeName string
	// Decoder decodes bodies; required.
	Decoder staticpod.Decoder
	// Period is the time between the end of one fetch and the start of the
	// next (kubelet httpCheckFrequency); 0 means DefaultHTTPCheckFrequency.
	Period time.Duration
	// Timeout bounds one fetch; 0 means DefaultURLTimeout.
	Timeout time.Duration
	// Transport, when set, carries the requests instead of
	// http.DefaultTransport (which the kubelet uses).
	Transport http.RoundTripper
	// Updates receives the SETs; required.
	Updates chan<- merge.PodUpdate
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// URLSource is the kubelet's URL source: it fetches the URL every period
// and sends the pods of every new body.
type URLSource struct {
	url string
	// shown is the URL as messages, logs and the status show it: its
	// user info and query values masked.
	shown    string
	header   http.Header
	nodeName string
	decoder  staticpod.Decoder
	period   time.Duration
	updates  chan<- merge.PodUpdate
	client   *http.Client
	now      func() time.Time
	status   StatusBook

	// last is the last non-empty 200 body, owned by Run. A body equal to it
	// is ignored, even when it had been rejected.
	last []byte
}

// NewURL returns a URL source for opts. It starts nothing; call Run.
func NewURL(opts URLOptions) (*URLSource, error) {
	if opts.URL == "" {
		return nil, errors.New("URL source: no URL")
	}
	if opts.Decoder == nil {
		return nil, errors.New("URL source: no decoder")
	}
	if opts.Updates == nil {
		return nil, errors.New("URL source: no updates channel")
	}
	if opts.NodeName == "" {
		return nil, errors.New("URL source: no node name")
	}
	period := opts.Period
	if period <= 0 {
		period = DefaultHTTPCheckFrequency
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultURLTimeout
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &URLSource{
		url:      opts.URL,
		shown:    redact.MaskURL(opts.URL),
		header:   opts.Header.Clone(),
		nodeName: opts.NodeName,
		decoder:  opts.Decoder,
		period:   period,
		updates:  opts.Updates,
		client:   &http.Client{Timeout: timeout, Transport: opts.Transport},
		now:      now,
	}
	s.status.st = Status{Source: v1alpha1.SourceHTTP, Target: redact.MaskURL(opts.URL), KubeletVersion: opts.Decoder.KubeletVersion()}
	return s, nil
}

// Status returns a copy of the source's current status.
func (s *URLSource) Status() Status { return s.status.Snapshot() }

// Run fetches the URL at once and then period after the end of each fetch,
// until ctx ends.
func (s *URLSource) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("source", v1alpha1.SourceHTTP, "url", s.shown)
	logger.V(1).Info("Watching static pod URL")
	failures := 0
	for {
		err := s.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			// Errors of the HTTP client and the decoder quote the URL as
			// given; the status and the log get it masked.
			err = errors.New(redact.MaskURLs(strings.ReplaceAll(err.Error(), s.url, s.shown)))
			s.status.Failed(s.now(), PartList, err)
			// Like the kubelet, only the first failures in a row are
			// logged at the default level, the fourth saying so.
			switch {
			case failures < 3:
				logger.Info("Failed to read pods from URL", "err", err)
			case failures == 3:
				logger.Info("Failed to read pods from URL. Dropping verbosity of this message to V(4)", "err", err)
			default:
				logger.V(4).Info("Failed to read pods from URL", "err", err)
			}
			failures++
		} else {
			s.status.Succeeded(s.now(), PartList)
			if failures > 0 {
				logger.Info("Successfully read pods from URL")
				failures = 0
			}
		}
		s.status.Checked(s.now())
		timer := time.NewTimer(s.period)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// poll fetches the URL once and sends what the kubelet would send for the
// response: nothing for a failed request or a non-200 status, an empty SET
// for an empty body (returning an error), nothing for the body seen last,
// and the pods of a usable body.
func (s *URLSource) poll(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return fmt.Errorf("building request for %s: %w", s.shown, err)
	}
	if s.header != nil {
		req.Header = s.header.Clone()
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", s.shown, err)
	}
	defer resp.Body.Close()
	// The kubelet reads the body before looking at the status, so an
	// oversized error page fails as oversized.
	data, err := utilio.ReadAtMost(resp.Body, staticpod.MaxManifestBytes)
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.shown, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%v: %v", s.shown, resp.Status)
	}
	if len(data) == 0 {
		// The kubelet neither remembers an empty body nor forgets the last
		// one: when that same body comes back, nothing is sent.
		s.send(ctx, []*v1.Pod{}, nil, nil)
		return fmt.Errorf("zero-length data received from %v", s.shown)
	}
	if bytes.Equal(data, s.last) {
		return nil
	}
	s.last = data
	pods, warnings, err := s.decoder.DecodeURL(data, s.url, s.nodeName)
	if err != nil {
		// The decoder's message leaves out the body, which may hold
		// secrets of the pods it defines, and says its size.
		return fmt.Errorf("decoding pods from %s: %w", s.shown, err)
	}
	var podWarnings [][]string
	if len(warnings) > 0 {
		// Only a single pod has warnings.
		podWarnings = [][]string{warnings}
	}
	s.send(ctx, pods, bodyFingerprints(s.url, s.nodeName, data, len(pods)), podWarnings)
	return nil
}

// send delivers pods as a SET, with their fingerprints, the URL (masked)
// as their origin and the decoder's warnings, and records it; the status
// lists the body as warned about while its pod has warnings.
func (s *URLSource) send(ctx context.Context, pods []*v1.Pod, fingerprints []string, warnings [][]string) {
	origins := make([]string, len(pods))
	for i := range origins {
		origins[i] = s.shown
	}
	var warned []staticpod.WarnedFile
	for i, w := range warnings {
		if len(w) > 0 {
			warned = append(warned, staticpod.WarnedFile{Path: s.shown, Pod: podKey(pods[i]), Warnings: w})
		}
	}
	s.status.Update(func(st *Status) { st.Warned = warned })
	if SendSet(ctx, s.updates, v1alpha1.SourceHTTP, pods, fingerprints, origins, warnings) {
		s.status.Delivered(s.now(), PodRefs(pods, func(*v1.Pod) string { return s.shown }))
	}
}
